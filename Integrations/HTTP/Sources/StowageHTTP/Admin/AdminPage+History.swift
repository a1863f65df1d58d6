#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import NIOCore
import Stowage
import StowageHistory
import StowageJSON
import StowageFlags

/// A flag's history, from every store that keeps one, and the history as
/// JSON for the `stowage` tool.
extension AdminPage {
    /// The flag's entries, newest first: its values and overrides, and the
    /// changes of its definition in the definitions' document, each shown
    /// as the part of the document that is this flag's.
    func history(ofFlag state: FlagState) async -> [AdminHistoryEntry] {
        var entries: [AdminHistoryEntry] = []
        for (name, history) in flags.histories {
            let own = (try? await history.changes(forKey: state.key, since: nil, limit: options.historyLimit)) ?? []
            entries += own.map { AdminHistoryEntry(record: $0, label: $0.kind == .refusal ? "refused" : name == "remote" ? "value" : "override") }
            let definitions = (try? await history.changes(forKey: flags.configurationsKey, since: nil, limit: options.historyLimit)) ?? []
            for var record in definitions where record.kind == .change {
                let (old, new) = (Self.definition(of: state.key, in: record.oldValue), Self.definition(of: state.key, in: record.newValue))
                guard old != new else { continue }
                (record.oldValue, record.newValue, record.hadValue, record.hasValue) = (old, new, old != nil, new != nil)
                entries.append(AdminHistoryEntry(record: record, label: "definition"))
            }
        }
        return Array(entries.sorted { ($0.record.date, $0.record.id) > ($1.record.date, $1.record.id) }.prefix(options.historyLimit))
    }

    private static func definition(of key: String, in document: StoredValue?) -> StoredValue? {
        guard case .dictionary(let members)? = document, case .dictionary(let flags)? = members["flags"] else { return nil }
        return flags[key]
    }

    /// `GET api/history?store=flags|settings&key=K&since=ISO8601&limit=N`:
    /// the entries as JSON, newest first, for a session or a user's token
    /// (`Authorization: Bearer`). Secret keys' entries carry no values.
    func historyAPI(_ request: Request) async throws -> Response {
        guard session(of: request) != nil || tokenUser(of: request) != nil else { return Self.json(["error": "unauthorized"], status: .unauthorized) }
        let parameters = request.uri.queryParameters
        let key = parameters["key"].map(String.init)
        var since: Date?
        if let text = parameters["since"] {
            guard let date = try? Date(String(text), strategy: .iso8601) else {
                return Self.json(["error": "since is not an ISO 8601 date and time, such as 2026-11-29T08:00:00Z"], status: .badRequest)
            }
            since = date
        }
        let limit = parameters["limit"].flatMap { Int($0) } ?? options.historyLimit
        let source: (any ChangeHistory)?
        switch parameters["store"].map(String.init) ?? "flags" {
        case "flags": source = flags.histories.first?.history
        case "settings": source = settings as? any ChangeHistory
        default: return Self.json(["error": "store is flags or settings"], status: .badRequest)
        }
        guard let source else { return Self.json(["error": "that store keeps no history"], status: .notFound) }
        do {
            let records = try await source.changes(forKey: key, since: since, limit: max(1, min(limit, 10_000)))
            return Self.json(.array(records.map(Self.json)), status: .ok)
        } catch {
            return Self.json(["error": .string(error.message)], status: .serviceUnavailable)
        }
    }

    static func json(_ record: ChangeRecord) -> StoredValue {
        var members: [String: StoredValue] = [
            "id": .signedInteger(record.id), "kind": .string(record.kind.rawValue), "key": .string(record.key),
            "date": .string(record.date.ISO8601Format()), "origin": .string(record.origin), "hadValue": .bool(record.hadValue),
            "hasValue": .bool(record.hasValue), "redacted": .bool(record.isRedacted),
        ]
        members["author"] = record.author.map(StoredValue.string)
        members["reason"] = record.reason.map(StoredValue.string)
        members["oldValue"] = record.oldValue
        members["newValue"] = record.newValue
        return .dictionary(members)
    }

    static func json(_ value: StoredValue, status: HTTPResponse.Status) -> Response {
        let text = (try? value.jsonText()) ?? "{}"
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
