import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StowageFlags
import StowageJSON

/// `stowage history` and `stowage flags history`: who changed what, from a
/// fleet's admin page, which reads the history its stores record.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show who changed a fleet's settings, when, from what to what.",
        discussion: """
            Reads the history a PostgreSQL store records, through the fleet's admin page \
            (AdminPage), newest first. Secret keys show that they changed, never their values.

            Example:
              STOWAGE_ADMIN_TOKEN=… stowage history --server https://ops.example.com/admin database-url
            """
    )

    @OptionGroup var server: AdminServerOptions
    @OptionGroup var filter: HistoryFilter

    func run() async throws {
        try await filter.show(store: "settings", from: server)
    }
}

/// `stowage flags history`.
struct FlagsHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show who changed a fleet's flags, when, from what to what, and who was refused.",
        discussion: """
            Reads the history of the flags' remote store through the fleet's admin page \
            (AdminPage), newest first. A flag's rule changes are entries of the key \
            $flag-configurations.

            Example:
              STOWAGE_ADMIN_TOKEN=… stowage flags history --server https://ops.example.com/admin new-checkout
            """
    )

    @OptionGroup var server: AdminServerOptions
    @OptionGroup var filter: HistoryFilter

    func run() async throws {
        try await filter.show(store: "flags", from: server)
    }
}

struct HistoryFilter: ParsableArguments {
    @Argument(help: "Only this key's entries.") var key: String?
    @Option(help: "Only entries from this time on, in ISO 8601 (2026-11-29T08:00:00Z).") var since: String?
    @Option(help: "At most this many entries.") var limit = 50
    @ArgumentParser.Flag(help: "Print the entries as JSON.") var json = false

    func show(store: String, from server: AdminServerOptions) async throws {
        do {
            var query = [URLQueryItem(name: "store", value: store), URLQueryItem(name: "limit", value: String(limit))]
            if let key { query.append(URLQueryItem(name: "key", value: key)) }
            if let since { query.append(URLQueryItem(name: "since", value: since)) }
            let answer = try await server.adminServer.get("/api/history", query: query)
            if json { return Output.json(answer) }
            guard case .array(let entries) = answer, !entries.isEmpty else { return Output.line("No changes recorded.") }
            Output.table(entries.map(Self.row))
        } catch let failure as CommandFailure {
            Output.error(failure.description)
            throw ExitCode.failure
        }
    }

    /// An entry as a row: when, who, key, what changed.
    private static func row(_ entry: StoredValue) -> [String] {
        guard case .dictionary(let fields) = entry else { return [entry.jsonText] }
        func text(_ name: String) -> String {
            if case .string(let value)? = fields[name] { return value }
            return ""
        }
        let who = text("author").isEmpty ? text("origin") : text("author")
        let change: String
        if text("kind") == "refusal" {
            change = "refused: \(text("reason"))"
        } else if fields["redacted"] == .bool(true) {
            change = "changed (secret)"
        } else {
            let old = fields["hadValue"] == .bool(true) ? fields["oldValue"].map(\.jsonText) ?? "null" : "none"
            let new = fields["hasValue"] == .bool(true) ? fields["newValue"].map(\.jsonText) ?? "null" : "removed"
            change = "\(old) → \(new)"
        }
        return [text("date"), who, text("key"), change]
    }
}
