import Hummingbird
import Stowage
import StowageHistory
import StowageFlags

/// The pages a signed-in user reads.
extension AdminPage {
    func listPage(_ request: Request) async throws -> Response {
        guard let session = session(of: request) else { return redirect(to: options.basePath + "/sign-in") }
        let query = request.uri.queryParameters["q"].map(String.init) ?? ""
        let needle = query.lowercased()
        let states = flags.all().filter { state in
            needle.isEmpty || state.key.lowercased().contains(needle) || state.definition.description.lowercased().contains(needle)
        }
        return htmlResponse(html.list(flags: states, settings: settingEntries(), query: query, viewer: viewer(session)))
    }

    /// The settings' keys and values, secret ones marked: the page shows none of their values.
    func settingEntries() -> [(key: String, value: StoredValue, secret: Bool)]? {
        guard let settings else { return nil }
        guard let snapshot = try? settings.snapshot() else { return [] }
        return snapshot.entries.keys.sorted().map { key in
            let secret = snapshot.secretKeys.contains(key)
            return (key, secret ? .null : snapshot.entries[key]!, secret)
        }
    }

    func flagPage(_ request: Request, key: String) async throws -> Response {
        guard let session = session(of: request) else { return redirect(to: options.basePath + "/sign-in") }
        guard let state = flags.state(key) else { return refusal(.notFound, "No flag has the key \(key).", viewer: viewer(session)) }
        // A fixed sentence per change: text from the address is never shown, so a link can not put words in the page.
        let saved = request.uri.queryParameters["saved"].flatMap { Self.savedNotices[String($0)] }
        return htmlResponse(
            html.flag(
                state, history: await history(ofFlag: state), viewer: viewer(session), notice: saved, error: nil,
                input: [:]))
    }

    func settingPage(_ request: Request, key: String) async throws -> Response {
        guard let session = session(of: request) else { return redirect(to: options.basePath + "/sign-in") }
        guard let settings else { return refusal(.notFound, "This page shows no settings.", viewer: viewer(session)) }
        let secret = settings.isSecret(key: key)
        let value = (try? settings.snapshot())?.entries[key]
        guard value != nil || settings is any ChangeHistory else {
            return refusal(.notFound, "The settings have no key \(key).", viewer: viewer(session))
        }
        var history: [AdminHistoryEntry]?
        if let recorded = settings as? any ChangeHistory {
            history = (try? await recorded.changes(forKey: key, since: nil, limit: options.historyLimit))?.map {
                AdminHistoryEntry(record: $0, label: "setting")
            }
        }
        return htmlResponse(html.setting(key: key, value: secret ? nil : value, secret: secret, history: history, viewer: viewer(session)))
    }

    /// What the page says after each kind of change.
    static let savedNotices = [
        "value": "Saved: the value, for every server.", "rule": "Saved: the rule.", "override": "Saved: the override, on this server.",
        "override-reset": "Saved: the override is reset.",
    ]
}
