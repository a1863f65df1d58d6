import ArgumentParser
import Foundation
import StowageFlags

/// The manifest option every `flags` command takes.
struct ManifestOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The manifest the program wrote.", valueName: "path"))
    var manifest: String?

    @Option(name: .long, help: ArgumentHelp("How long to wait for a lock another process holds, in seconds.", valueName: "seconds"))
    var lockTimeout: Double = 10

    func validate() throws {
        guard lockTimeout.isFinite, (0...86_400).contains(lockTimeout) else {
            throw ValidationError("--lock-timeout takes a number of seconds from 0 to 86400.")
        }
    }

    /// The flags the manifest describes, whose writes wait for a lock at most `--lock-timeout`.
    func open(changeDetection: JSONFileStore.Options.ChangeDetection = .none) throws -> FlagConsole {
        guard let path = manifest ?? ProcessInfo.processInfo.environment["STOWAGE_FLAGS_MANIFEST"] else {
            throw CommandFailure("name the program's flag manifest with --manifest PATH or STOWAGE_FLAGS_MANIFEST.")
        }
        return try FlagConsole(
            contentsOf: URL(filePath: path), changeDetection: changeDetection, lockTimeout: .milliseconds(Int64(lockTimeout * 1000))
        )
    }
}
