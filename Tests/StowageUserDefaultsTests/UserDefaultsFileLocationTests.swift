#if !canImport(Darwin)
import Foundation
import StowageTestSupport
import StowageUserDefaults
import Testing

/// On Linux the store rereads the domain's file itself, so it must look
/// where Foundation writes it, whatever `HOME` and `XDG_CONFIG_HOME` say.
/// Each case runs a worker started with its environment: Foundation reads
/// both variables once, as the process starts.
struct UserDefaultsFileLocationTests {
    enum Environment: String, CaseIterable, CustomTestStringConvertible {
        /// `HOME` set to a folder that is not the home in `/etc/passwd`, as containers and CI jobs do.
        case homeOfItsOwn
        /// An absolute `XDG_CONFIG_HOME`, which wins over `HOME`.
        case absoluteConfigurationHome
        /// A relative `XDG_CONFIG_HOME`, which Foundation ignores, as the XDG specification says.
        case relativeConfigurationHome

        var testDescription: String { rawValue }
    }

    @Test(arguments: Environment.allCases)
    func theStoreRereadsTheFileFoundationWrites(_ setting: Environment) throws {
        let home = TemporaryDirectory()
        let configuration = TemporaryDirectory()
        var environment = WorkerProcess.userDefaultsEnvironment
        environment["HOME"] = home.path
        let expectedFolder: String
        switch setting {
        case .homeOfItsOwn:
            environment["XDG_CONFIG_HOME"] = nil
            expectedFolder = home.file(".config")
        case .absoluteConfigurationHome:
            environment["XDG_CONFIG_HOME"] = configuration.path
            expectedFolder = configuration.path
        case .relativeConfigurationHome:
            environment["XDG_CONFIG_HOME"] = "relative/config"
            expectedFolder = home.file(".config")
        }
        let suiteName = "stowage-tests-\(UUID().uuidString)"

        let (status, output) = try WorkerProcess.userDefaults.run(["locate", suiteName], environment: environment)
        #expect(status == 0, "the worker failed:\n\(output)")

        let located = output.trimmingCharacters(in: .newlines)
        #expect(located == expectedFolder + "/" + suiteName + ".plist")
        // Where Foundation itself wrote the value the worker set.
        #expect(FileManager.default.fileExists(atPath: located), "Foundation wrote no file at \(located)")
    }
}
#endif
