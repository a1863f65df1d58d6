import Stowage
import StowageHistory
import StowageJSON
import StowageFlags

/// A pole's flags as the admin page reads and changes them, whatever its container.
struct AdminFlags: Sendable {
    let all: @Sendable () -> [FlagState]
    let state: @Sendable (_ key: String) -> FlagState?
    let update: @Sendable (_ values: [String: StoredValue]) throws(StorageError) -> FlagUpdateResult
    let override: @Sendable (_ key: String, _ value: StoredValue) throws(StorageError) -> Void
    let removeOverride: @Sendable (_ key: String) throws(StorageError) -> Void
    let remote: any UnderlyingStorage
    let overrides: any UnderlyingStorage
    let configurationsKey: String
    let remoteUpdateTimeKey: String
    /// Observes every store the flags read.
    let observe: @Sendable (_ handler: @escaping @Sendable () -> Void) -> ObservationToken

    init<Container>(_ pole: FlagPole<Container>) {
        all = { pole.all }
        state = { pole.state(forKey: $0) }
        update = { values throws(StorageError) in try pole.update(with: values, mode: .patch) }
        override = { key, value throws(StorageError) in try pole.override(key: key, with: value) }
        removeOverride = { key throws(StorageError) in try pole.removeOverride(forKey: key) }
        remote = pole.remote
        overrides = pole.overrides
        configurationsKey = FlagPole<Container>.configurationsKey
        remoteUpdateTimeKey = FlagPole<Container>.remoteUpdateTimeKey
        observe = { handler in pole.store.observe { _ in handler() } }
    }

    /// Where a flag's changes are recorded: the remote store's history and
    /// the overrides', for the stores that keep one (the PostgreSQL store).
    var histories: [(name: String, history: any ChangeHistory)] {
        [("remote", remote as? any ChangeHistory), ("override", overrides as? any ChangeHistory)].compactMap { name, history in
            history.map { (name, $0) }
        }
    }
}

/// A refused edit: the page shows `message`, and nothing was written.
struct AdminRefusal: Error, Sendable {
    let message: String
}

/// What a form's text means for a flag of a type: a value of that type, or
/// a refusal that says what the type takes, before anything is written.
enum FlagInput {
    static func value(_ text: String, for state: FlagState) throws(AdminRefusal) -> StoredValue {
        let trimmed = text.trimmingSpacesAndNewlines
        let parsed: StoredValue?
        switch state.type.kind {
        case .bool: parsed = ["true": StoredValue.bool(true), "false": .bool(false)][trimmed.lowercased()]
        case .integer: parsed = Int64(trimmed).map(StoredValue.signedInteger) ?? UInt64(trimmed).map(StoredValue.unsignedInteger)
        case .floatingPoint: parsed = Double(trimmed).flatMap { $0.isFinite ? StoredValue.double($0) : nil }
        case .string: parsed = .string(text)
        case .choice(let choices): parsed = choices.first { Self.text(of: $0) == trimmed }
        case .other: parsed = try? StoredValue(jsonText: trimmed)
        }
        guard let parsed, let checked = try? state.type.checked(parsed, forKey: state.key) else {
            throw AdminRefusal(
                message:
                    "\(state.key) is \(state.type.description), which takes \(state.type.expectation); \"\(text.prefix(80))\" is not one. Nothing was changed.")
        }
        return checked
    }

    /// A value as a form shows it: a string as itself, anything else as JSON.
    static func text(of value: StoredValue) -> String {
        if case .string(let string) = value { return string }
        return (try? value.jsonText()) ?? value.description
    }

    /// The definition of `state`'s flag with `targeting` (JSON text; empty:
    /// none) as its rule, checked by the pole's own parser of definitions.
    /// A flag defined by value alone gets variants from its value: `on` and
    /// `off` for a Boolean, `value` otherwise, the current one the default.
    static func definition(of state: FlagState, withTargeting text: String) throws(AdminRefusal) -> StoredValue {
        let trimmed = text.trimmingSpacesAndNewlines
        var targeting: StoredValue?
        if !trimmed.isEmpty {
            do { targeting = try StoredValue(jsonText: trimmed, maximumDepth: 64) } catch {
                throw AdminRefusal(message: "The rule of \(state.key) is not JSON: \(error.reason) Nothing was changed.")
            }
            guard case .dictionary = targeting else {
                throw AdminRefusal(message: "The rule of \(state.key) must be a JsonLogic object, such as {\"if\": [...]}. Nothing was changed.")
            }
        }
        var configuration =
            state.configuration
            ?? {
                if case .bool(let on) = state.value {
                    return FlagConfiguration(key: state.key, variants: ["on": true, "off": false], defaultVariant: on ? "on" : "off")
                }
                return FlagConfiguration(key: state.key, variants: ["value": state.value], defaultVariant: "value")
            }()
        configuration.targeting = targeting
        return configuration.flagdValue
    }
}

extension String {
    var trimmingSpacesAndNewlines: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
