import ArgumentParser
import Foundation
import StowageFlags

/// The file and how to open it, for every command on a settings file.
struct SettingsFileOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The JSON settings file.", valueName: "file"))
    var file: String

    @Option(
        help: ArgumentHelp(
            "Keys are paths through nested objects, split at this separator (\"server.port\" is {\"server\": {\"port\": …}}); flat keys unless given.",
            valueName: "separator"))
    var nested: String?

    @Option(name: .long, help: ArgumentHelp("How long to wait for a lock another process holds, in seconds.", valueName: "seconds"))
    var lockTimeout: Double = 10

    /// The store on the file, laid out as asked and formatted as the file is,
    /// whose writes wait for a lock at most `--lock-timeout`.
    ///
    /// A file that exists must be a readable JSON object: the store would move
    /// a file that is not JSON aside, which a tool must not do to a file it was
    /// only asked to read or change one key of.
    func open(changeDetection: JSONFileStore.Options.ChangeDetection = .none) throws -> JSONFileStore {
        let url = URL(filePath: file)
        var prettyPrinted = true
        if FileManager.default.fileExists(atPath: file) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure("\(file) can not be read (\(Self.reason(for: file))).")
            }
            if !data.isEmpty {
                guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
                    throw CommandFailure("\(file) is not a JSON object; it is left as it is.")
                }
                // Pretty-printed files indent their members; a one-line file stays on one line.
                prettyPrinted = data.firstRange(of: Data("\n ".utf8)) != nil || data.firstRange(of: Data("\n\t".utf8)) != nil
            }
        }
        let options = JSONFileStore.Options(
            prettyPrinted: prettyPrinted, keyLayout: nested.map { .nested(separator: $0) } ?? .flat,
            changeDetection: changeDetection, lockTimeout: .milliseconds(Int64(lockTimeout * 1000))
        )
        return JSONFileStore(url: url, options: options)
    }

    func validate() throws {
        guard lockTimeout.isFinite, (0...86_400).contains(lockTimeout) else {
            throw ValidationError("--lock-timeout takes a number of seconds from 0 to 86400.")
        }
    }

    /// Why a file that exists can not be read.
    private static func reason(for path: String) -> String {
        FileManager.default.isReadableFile(atPath: path) ? "it is not a regular file" : "permission denied"
    }
}
