import Foundation
import StowageEnvironment
import Testing

/// From store keys to variable names.
struct EnvironmentKeyMappingTests {
    @Test(arguments: [
        ("database.maxHTTPConnections", "MYAPP", "MYAPP_DATABASE_MAX_HTTP_CONNECTIONS"),
        ("maxHTTPConnections", "", "MAX_HTTP_CONNECTIONS"),
        ("server.port", "", "SERVER_PORT"),
        ("logLevel", "", "LOG_LEVEL"),
        ("DATABASE_URL", "", "DATABASE_URL"),
        ("PATH", "", "PATH"),
        ("feature-flags.newUI", "", "FEATURE_FLAGS_NEW_UI"),
        ("ipv6Address", "", "IPV6_ADDRESS"),
        ("oauth2ClientID", "", "OAUTH2_CLIENT_ID"),
        ("URLSession.timeout", "", "URL_SESSION_TIMEOUT"),
        ("userIDs", "", "USER_IDS"),
        ("URLsByHost", "", "URLS_BY_HOST"),
        ("HTTPServer", "", "HTTP_SERVER"),
        ("a", "X_", "X_A"),
        ("already_snake_case", "APP", "APP_ALREADY_SNAKE_CASE"),
        ("port", "my_app", "my_app_PORT"),
    ])
    func automaticMapping(key: String, prefix: String, expected: String) {
        #expect(EnvironmentStore.KeyMapping.automatic(prefix: prefix).variableName(for: key) == expected)
    }

    @Test func exactAndCustomMappings() {
        #expect(EnvironmentStore.KeyMapping.exact.variableName(for: "server.port") == "server.port")
        let custom = EnvironmentStore.KeyMapping.custom { "CUSTOM_" + $0.uppercased() }
        #expect(custom.variableName(for: "x") == "CUSTOM_X")
    }

    @Test func twoKeysNamingOneVariableAreReportedNotMerged() throws {
        let store = EnvironmentStore(variables: ["MAX_HTTP_CONNECTIONS": "8"])
        #expect(try store.value(forKey: "maxHTTPConnections", as: Int.self) == 8)
        var reported: StorageError?
        do {
            _ = try store.value(forKey: "max.http.connections", as: Int.self)
        } catch let error as StorageError {
            reported = error
        }
        #expect(reported?.code == .keyConflict)
        #expect(reported?.message.contains("MAX_HTTP_CONNECTIONS") == true)
        #expect(reported?.message.contains("maxHTTPConnections") == true)
        #expect(store.lastError?.code == .keyConflict)
        #expect(throws: StorageError.self) { try store.set(9, forKey: "MAX_HTTP_CONNECTIONS") }
        // The first key still reads its variable, untouched by the refused write.
        #expect(try store.value(forKey: "maxHTTPConnections", as: Int.self) == 8)
    }

    @Test func aWrapperUsesTheMapping() {
        struct Settings {
            @EnvironmentStorage("server.maxHTTPConnections", in: store) var connections = 4
            static let store = EnvironmentStore(variables: ["APP_SERVER_MAX_HTTP_CONNECTIONS": "64"], options: .init(keyMapping: .automatic(prefix: "APP")))
        }
        #expect(Settings().connections == 64)
    }
}

/// The variable names `Guides/Keys.md` promises in its table of one key in
/// every store are the ones the store reads (issue 14: it gave
/// `NETWORK/MAX_RETRIES` for `network/maxRetries`).
struct KeysGuideTableTests {
    @Test func everyVariableNameInTheGuideIsTheOneTheStoreReads() throws {
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Guides/Keys.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        let store = EnvironmentStore(variables: [:])
        var checked = 0
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            // Rows of the key-in-every-store table: key, flat file, nested file, variable.
            guard cells.count == 4, cells[1].hasPrefix("`{"), let variable = cells[3].split(separator: "`").first else { continue }
            let key = String(cells[0].dropFirst().dropLast())
            #expect(store.variableName(forKey: key) == String(variable), "Keys.md says \(key) is \(variable)")
            checked += 1
        }
        #expect(checked >= 7, "the table was not found")
    }
}
