import HTTPTypes
import Hummingbird
import Stowage
import StowageHistory
import StowageFlags

/// Changes: every one needs a session of an editor and its CSRF token, is
/// checked before anything is written, and names its author in the history.
extension AdminPage {
    func change(_ request: Request, key: String, action: FlagAction) async throws -> Response {
        let body = try await request.body.collect(upTo: options.maximumBodySize)
        guard let session = session(of: request) else {
            return refusal(.unauthorized, "Sign in to change flags; nothing was changed.", viewer: nil)
        }
        let viewer = viewer(session)
        guard let fields = try? AdminForm.fields(of: body.readableBytesView) else {
            return refusal(.badRequest, "The form could not be read (it is not URL-encoded form data); nothing was changed.", viewer: viewer)
        }
        // Refusals are recorded for flags that exist: a made-up key is answered, not written down.
        let exists = flags.state(key) != nil
        guard !Self.isCrossSite(request), sessions.checkCSRF(fields["csrf"] ?? "", for: session) else {
            if exists {
                await recordRefusal(key: key, author: session.name, reason: "the request to change it carried no valid CSRF token (a forged or stale form)")
            }
            return refusal(.forbidden, "The request carried no valid CSRF token, so it may not come from this page; nothing was changed.", viewer: viewer)
        }
        guard session.role == .editor else {
            if exists { await recordRefusal(key: key, author: session.name, reason: "\(session.name) is a viewer, and viewers may not change flags") }
            return refusal(.forbidden, "Viewers may not change flags; nothing was changed.", viewer: viewer)
        }
        guard let state = flags.state(key) else { return refusal(.notFound, "No flag has the key \(key); nothing was changed.", viewer: viewer) }
        do {
            let what = try await ChangeAuthor.$name.withValue(session.name) { () async throws(AdminRefusal) -> String in
                try await apply(action, to: state, fields: fields)
            }
            return redirect(
                to: fields["from"] == "list"
                    ? options.basePath + "/" : "\(options.basePath)/flags/\(AdminHTML.pathSegment(key))?saved=\(AdminHTML.pathSegment(what))")
        } catch {
            let message = (error as? AdminRefusal)?.message ?? "The change was not saved: \(error)"
            let input = [
                "value": action == .value ? fields["value"] : nil, "targeting": action == .rule ? fields["targeting"] : nil,
                "override": action == .override ? fields["value"] : nil,
            ].compactMapValues { $0 }
            let page = html.flag(state, history: await history(ofFlag: state), viewer: viewer, notice: nil, error: message, input: input)
            return htmlResponse(page, status: .unprocessableContent)
        }
    }

    /// Writes the change, and waits until the stores have it.
    /// - Returns: what changed, one of ``savedNotices``' keys, for the page's notice.
    func apply(_ action: FlagAction, to state: FlagState, fields: [String: String]) async throws(AdminRefusal) -> String {
        do {
            switch action {
            case .value:
                let value = try FlagInput.value(fields["value"] ?? "", for: state)
                try check(try flags.update([state.key: value]))
                try await commit(flags.remote)
                return "value"
            case .rule:
                let definition = try FlagInput.definition(of: state, withTargeting: fields["targeting"] ?? "")
                try check(try flags.update(["flags": .dictionary([state.key: definition])]))
                try await commit(flags.remote)
                return "rule"
            case .override:
                try flags.override(state.key, try FlagInput.value(fields["value"] ?? "", for: state))
                try await commit(flags.overrides)
                return "override"
            case .resetOverride:
                try flags.removeOverride(state.key)
                try await commit(flags.overrides)
                return "override-reset"
            }
        } catch let error as AdminRefusal {
            throw error
        } catch let error as StorageError {
            throw AdminRefusal(message: "The change was not saved: \(error.message)")
        } catch {
            throw AdminRefusal(message: "The change was not saved: \(error)")
        }
    }

    /// A definition or value the pole left out is a refusal, with its reason.
    private func check(_ result: FlagUpdateResult) throws(AdminRefusal) {
        guard let rejected = result.rejected.first else { return }
        throw AdminRefusal(message: "\(rejected.reason) Nothing was changed.")
    }

    private func commit(_ store: any UnderlyingStorage) async throws(AdminRefusal) {
        do { try await store.commitPendingWrites() } catch {
            throw AdminRefusal(message: "The change is queued but not yet saved: \((error as? StorageError)?.message ?? "\(error)")")
        }
    }

    /// Records a refused request in the first history the flags have, so
    /// that it is seen beside the changes; without one, nowhere.
    private func recordRefusal(key: String, author: String, reason: String) async {
        guard let history = flags.histories.first?.history else { return }
        try? await history.recordRefusal(forKey: key, author: author, reason: reason)
    }
}
