#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing

/// `stowage get|set|remove|list|watch FILE`, run beside programs that have the file open.
struct SettingsFileCommandTests {
    @Test func aChangeReachesEveryProgramWithTheFileOpen() throws {
        let folder = Folder()
        let file = folder.path("settings.json")
        try Data("{\n  \"theme\": \"light\",\n  \"server\": {\"port\": 8080}\n}\n".utf8).write(to: URL(filePath: file))
        let programs = try (0..<3).map { _ in try RunningProcess("StowageSettingsProgram", [file]) }
        defer { programs.forEach { $0.stop() } }
        for program in programs { #expect(program.waitForLine(containing: "ready") != nil) }

        #expect(try stowage("set", file, "theme", "dark").status == 0)
        for program in programs { #expect(program.waitForLine(containing: #"theme="dark""#) != nil) }
        #expect(try stowage("get", file, "theme").output == "\"dark\"\n")

        #expect(try stowage("set", file, "retries", "3").status == 0)
        for program in programs { #expect(program.waitForLine(containing: "retries=3") != nil) }
        #expect(try stowage("remove", file, "retries").status == 0)
        for program in programs { #expect(program.waitForLine(containing: "retries removed") != nil) }

        // Written as the file was laid out: pretty-printed here; a compact file stays compact.
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\n  \"theme\": \"dark\""))
        let compact = folder.path("compact.json")
        try Data(#"{"theme":"light"}"#.utf8).write(to: URL(filePath: compact))
        #expect(try stowage("set", compact, "theme", "dark").status == 0)
        #expect(try String(contentsOfFile: compact, encoding: .utf8) == #"{"theme":"dark"}"#)
    }

    @Test func listAlignsKeysAndRedactsSecrets() throws {
        let folder = Folder()
        let file = folder.path("settings.json")
        try Data(#"{"theme": "dark", "server": {"port": 8080}, "api.token": "s3cr3t"}"#.utf8).write(to: URL(filePath: file))
        #expect(
            try stowage("list", file).output == """
                api.token  <redacted>
                server     {"port":8080}
                theme      "dark"

                """)
        #expect(
            try stowage("list", file, "--nested", ".").output == """
                api.token    <redacted>
                server.port  8080
                theme        "dark"

                """)
        #expect(try stowage("get", file, "api.token").output == "<redacted>\n")
        // A secret nested under an ordinary key is redacted too.
        try Data(#"{"database": {"host": "db", "password": "s3cr3t"}, "list": [{"token": "t"}]}"#.utf8).write(to: URL(filePath: file))
        #expect(
            try stowage("list", file).output == """
                database  {"host":"db","password":"<redacted>"}
                list      [{"token":"<redacted>"}]

                """)
        #expect(try stowage("get", file, "database").output == #"{"host":"db","password":"<redacted>"}"# + "\n")
        #expect(try stowage("list", file, "--json").output.contains("s3cr3t") == false)
        #expect(try stowage("get", file, "database", "--show-secrets").output.contains("s3cr3t"))
        try Data(#"{"theme": "dark", "server": {"port": 8080}, "api.token": "s3cr3t"}"#.utf8).write(to: URL(filePath: file))
        #expect(try stowage("get", file, "api.token", "--show-secrets").output == "\"s3cr3t\"\n")
        #expect(try stowage("get", file, "server.port", "--nested", ".").output == "8080\n")
        let json = try stowage("list", file, "--json").output
        #expect(json == #"{"api.token":"<redacted>","server":{"port":8080},"theme":"dark"}"# + "\n")
    }

    @Test func valuesAreJSONLiteralsAndPlainWordsAreText() throws {
        let folder = Folder()
        let file = folder.path("settings.json")
        for (value, stored) in [
            ("true", "true"), ("250", "250"), ("1.5", "1.5"), ("dark", "\"dark\""), ("\"dark\"", "\"dark\""),
            ("[1, 2]", "[1,2]"), (#"{"burst": 5}"#, #"{"burst":5}"#), ("hello world", "\"hello world\""),
        ] {
            #expect(try stowage("set", file, "value", value).status == 0)
            #expect(try stowage("get", file, "value").output == stored + "\n", "\(value)")
        }
    }

    @Test func badFilesAndUnknownKeysAreErrorsThatLeaveTheFileAlone() throws {
        let folder = Folder()
        let file = folder.path("settings.json")
        try Data(#"{"theme": "dark"}"#.utf8).write(to: URL(filePath: file))
        let unknown = try stowage("get", file, "colour")
        #expect(unknown.status == 1 && unknown.error == "stowage: Key \"colour\": \(file) has no value for this key.\n")
        let removeUnknown = try stowage("remove", file, "colour")
        #expect(removeUnknown.status == 1 && removeUnknown.error.contains("Key \"colour\""))

        let broken = folder.path("broken.json")
        try Data(#"{"theme": "#.utf8).write(to: URL(filePath: broken))
        for command in [["get", broken, "theme"], ["set", broken, "theme", "dark"], ["list", broken]] {
            let run = try stowage(command)
            #expect(run.status == 1 && run.error.contains("is not a JSON object; it is left as it is"), "\(command)")
        }
        #expect(try String(contentsOfFile: broken, encoding: .utf8) == #"{"theme": "#)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path()).filter { $0.contains("corrupt") }.isEmpty)

        let directory = folder.path("a-folder.json")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let unreadable = try stowage("get", directory, "theme")
        #expect(unreadable.status == 1 && unreadable.error.contains("a-folder.json can not be read"))
        let missing = try stowage("list", folder.path("missing.json"))
        #expect(missing.status == 1 && missing.error.contains("missing.json does not exist"))
        let watchBroken = try stowage("watch", broken)
        #expect(watchBroken.status == 1 && watchBroken.error.contains("is not a JSON object"))
    }

    @Test func aFileLockedForLongIsReportedAfterTheTimeoutAndNothingIsWritten() throws {
        let folder = Folder()
        let file = folder.path("settings.json")
        #expect(try stowage("set", file, "theme", "dark").status == 0)
        let lock = open(file + ".lock", O_RDWR | O_CREAT, 0o600)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let blocked = try stowage("set", file, "theme", "light", "--lock-timeout", "0.2")
        let removal = try stowage("remove", file, "theme", "--lock-timeout", "0.2")
        flock(lock, LOCK_UN)
        close(lock)
        #expect(blocked.status == 1 && blocked.error.contains("locked by another process for more than 0.2 seconds"))
        #expect(removal.status == 1)
        #expect(try stowage("get", file, "theme").output == "\"dark\"\n")
        // And nothing was left to be written later.
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("dark"))
        let badTimeout = try stowage("set", file, "theme", "light", "--lock-timeout", "inf")
        #expect(badTimeout.status == 64 && badTimeout.error.contains("--lock-timeout takes a number of seconds"))
    }

    @Test func watchPrintsEachChangeWhoeverMadeIt() throws {
        let folder = Folder()
        let file = folder.path("settings.json")
        #expect(try stowage("set", file, "theme", "dark").status == 0)
        let watch = try RunningProcess("stowage", ["watch", file])
        defer { watch.stop() }
        #expect(watch.waitForLine(containing: "Watching") != nil)
        #expect(try stowage("set", file, "theme", "sepia").status == 0)
        #expect(watch.waitForLine(containing: #"theme = "sepia""#) != nil)
        #expect(try stowage("remove", file, "theme").status == 0)
        #expect(watch.waitForLine(containing: "theme removed") != nil)
    }
}
