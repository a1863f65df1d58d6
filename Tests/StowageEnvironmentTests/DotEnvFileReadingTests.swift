import Foundation
import StowageEnvironment
import StowageTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a `.env` file's bytes are read: an empty file takes a path of its own.
struct DotEnvFileReadingTests {
    let files = TemporaryDirectory()

    @Test func anEmptyFileHasNoVariables() throws {
        let empty = files.write("", to: "empty.env")
        let store = try EnvironmentStore(dotEnv: .init(url: empty, isRequired: true), variables: ["KEPT": "1"])
        #expect(store.environmentForChildProcess() == ["KEPT": "1"])
    }

    /// A pipe (`--env-file <(…)` in a shell) reports size 0, like an empty file, but has text to read.
    @Test func aPipeIsRead() throws {
        let fifo = files.url("fifo.env")
        #expect(mkfifo(fifo.path(percentEncoded: false), 0o600) == 0)
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: fifo.path(percentEncoded: false))
            handle?.write(Data("FROM_PIPE=yes\n".utf8))
            try? handle?.close()
        }
        writer.start()
        let piped = try EnvironmentStore(dotEnv: .init(url: fifo, isRequired: true), variables: [:])
        #expect(piped.environmentForChildProcess() == ["FROM_PIPE": "yes"])
    }
}
