import ArgumentParser
import Foundation
import StowageFlags

/// A failure the tool reports with a message and exit status 1: the
/// message names the key (when there is one) and the problem.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message
    }

    init(_ error: StorageError) {
        description = error.message
    }
}

extension ParsableCommand {
    /// Runs `body`, turning a `StorageError` or a `CommandFailure` into a
    /// message on standard error and exit status 1.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CommandFailure {
            Output.error(failure.description)
            throw ExitCode.failure
        } catch let error as StorageError {
            Output.error(error.message)
            throw ExitCode.failure
        }
    }
}
