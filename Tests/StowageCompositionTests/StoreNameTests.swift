import Foundation
import StowageEnvironment
import StowageInMemory
import StowageJSONFile
import StowageTestSupport
import Testing

/// Reports and events name their store, so an operator with several stores
/// knows which one a log line is about; a name never holds a value.
struct StoreNameTests {
    @Test func eachStoreNamesItselfByWhatTellsItApart() throws {
        let directory = TemporaryDirectory()
        let file = JSONFileStore(url: directory.url("settings.json"), options: .init(changeDetection: .none))
        #expect(file.storeName == "JSONFileStore(\(directory.file("settings.json")))")
        #expect(InMemoryStore().storeName == "InMemoryStore")
        #expect(EnvironmentStore(variables: ["TOKEN": "s3cr3t"]).storeName == "EnvironmentStore")
        let dotEnv = directory.file(".env")
        try "PORT=80\n".write(toFile: dotEnv, atomically: true, encoding: .utf8)
        #expect(try EnvironmentStore(dotEnv: URL(fileURLWithPath: dotEnv), options: .init()).storeName == "EnvironmentStore(\(dotEnv))")
        #expect(file.namespace("billing").storeName == "Namespace(\"billing.\" in \(file.storeName))")
        let layered = LayeredStore([LayeredStore.Layer("overrides", InMemoryStore()), LayeredStore.Layer("file", file)])
        #expect(layered.storeName == "LayeredStore(overrides, file)")
    }

    @Test func aSkippedDotEnvLineIsReportedWithItsStore() throws {
        ReportedErrors.install()
        let directory = TemporaryDirectory()
        let dotEnv = directory.file(".env")
        try "PORT=80\nnot an assignment\n".write(toFile: dotEnv, atomically: true, encoding: .utf8)
        _ = try EnvironmentStore(dotEnv: URL(fileURLWithPath: dotEnv), skipsMalformedLines: true)
        let report = try #require(ReportedErrors.mentioning(dotEnv).first)
        #expect(report.storeName == "EnvironmentStore(\(dotEnv))")
        #expect("\(report)".hasPrefix("StorageError(invalidDotEnv) in EnvironmentStore(\(dotEnv)): "), "\(report)")
    }
}
