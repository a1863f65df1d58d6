import Stowage
import StowageFlags
import StowageJSON

/// Flag definitions in flagd's format over arbitrary JSON: a payload applied
/// to a pole of declared flags, and each configured flag evaluated for a context.
///
/// The input is JSON text. A two-element array is a payload and the context
/// (an object: `targetingKey` and attributes); any other value is a payload
/// evaluated for an empty context. Text that is not JSON is skipped: the
/// JSON parser has a target of its own.
///
/// Properties checked, beyond "no payload, rule or context traps":
///
/// - every refusal names the flag it leaves out, or is about the whole set;
/// - an accepted declared flag's variants are values of its type;
/// - an evaluation has an error code exactly when its reason is `ERROR`, a
///   variant only with a value, and that value is the variant's;
/// - a declared flag reads what its evaluation gives, or its default;
/// - two evaluations agree (unless the rule reads the time);
/// - the configurations as stored are read back as the same configurations.
package struct FlagDefinitionsFuzzCheck: FuzzCheck {
    package static let name = "flag-definitions"

    /// No enum flag: the pole lives for the process, and LeakSanitizer does
    /// not see through the bits Swift packs into the pointer of an enum's
    /// list of cases, so it reports that list as leaked (see `FlagDeclaration`).
    /// The unit tests cover enum flags' variants.
    struct FuzzFlags: FlagContainer {
        @Flag("A boolean") var enabled = false
        @Flag("A whole number") var limit = 10
        @Flag("Text") var banner = "hello"
        @Flag("A fraction") var ratio = 0.5
    }

    /// One pole for the process: each pole keeps a few hundred bytes per
    /// flag for good, so a pole per input would grow without end. Each input
    /// starts from no configurations.
    private static let pole = Result { try FlagPole(FuzzFlags(), overrides: InMemoryStore()) }
    private static let declared = ["enabled", "limit", "banner", "ratio"]

    package init() {}

    package func check(_ input: [UInt8]) throws(PropertyViolation) {
        guard let value = try? JSONParser().parse(input) else { return }
        let (payloadValue, contextValue): (StoredValue, StoredValue)
        if case .array(let pair) = value, pair.count == 2 {
            (payloadValue, contextValue) = (pair[0], pair[1])
        } else {
            (payloadValue, contextValue) = (value, [:])
        }
        guard case .dictionary(var payload) = payloadValue else { return }
        if case .dictionary? = payload["flags"] {} else { payload["flags"] = [:] }  // always definitions, never values
        let flags: FlagPole<FuzzFlags>
        do { flags = try Self.pole.get() } catch { throw PropertyViolation("the pole did not open: \(error)") }
        do { try flags.update(with: ["flags": [:]]) } catch { throw PropertyViolation("clearing the configurations failed: \(error)") }
        // Cleared again at the end, so that the pole holds no rule when the process exits:
        // LeakSanitizer does not see through the bits Swift packs into the pointer of an
        // indirect enum case (a rule's nodes) and would report the last input's rules as leaked.
        defer { _ = try? flags.update(with: ["flags": [:]]) }

        let result: FlagUpdateResult
        do { result = try flags.update(with: payload) } catch { throw PropertyViolation("applying definitions threw: \(error)") }
        let flagKeys: Set<String>
        if case .dictionary(let members)? = payload["flags"] { flagKeys = Set(members.keys) } else { flagKeys = [] }
        for error in result.rejected {
            if let key = error.key, !flagKeys.contains(key) { throw PropertyViolation("a refusal names \(key), which the payload does not define") }
        }
        let configurations = flags.configurations
        for key in Self.declared {
            guard let configuration = configurations[key], let state = flags.state(forKey: key) else { continue }
            for (name, variant) in configuration.variants where (try? state.definition.type.checked(variant, forKey: key)) == nil {
                throw PropertyViolation("flag \(key) was given variant \(name), which is not a \(state.type.name)")
            }
        }

        var context = EvaluationContext()
        if case .dictionary(var attributes) = contextValue {
            if case .string(let key)? = attributes.removeValue(forKey: "targetingKey") { context.targetingKey = key }
            context.attributes = attributes
        }
        for key in configurations.keys.sorted() {
            let details = flags.details(forKey: key, for: context)
            try checkConsistency(details, configuration: configurations[key])
            let readsTime = configurations[key]?.targeting.map { "\($0)".contains("timestamp") } ?? false
            if !readsTime, flags.details(forKey: key, for: context) != details { throw PropertyViolation("two evaluations of \(key) differ") }
            if !readsTime, Self.declared.contains(key) { try checkRead(key, flags: flags, context: context, details: details) }
        }

        do {
            let stored: [String: StoredValue] = [
                "flags": .dictionary(configurations.mapValues(\.flagdValue)), "metadata": .dictionary(flags.configurationMetadata),
            ]
            let reread = try flags.update(with: stored)
            guard reread.rejected.isEmpty, flags.configurations == configurations else {
                throw PropertyViolation("the stored configurations do not read back as themselves: \(reread.rejected.map(\.message))")
            }
        } catch let violation as PropertyViolation {
            throw violation
        } catch {
            throw PropertyViolation("re-applying the configurations threw: \(error)")
        }
    }

    private func checkConsistency(_ details: FlagEvaluation<StoredValue?>, configuration: FlagConfiguration?) throws(PropertyViolation) {
        guard (details.reason == .error) == (details.errorCode != nil) else {
            throw PropertyViolation("\(details.key): reason \(details.reason.rawValue) with error code \(details.errorCode?.rawValue ?? "none")")
        }
        if let variant = details.variant {
            guard let configuration, configuration.variants[variant] == details.value else {
                throw PropertyViolation("\(details.key): variant \(variant) with a value that is not the variant's")
            }
        }
    }

    private func checkRead(
        _ key: String, flags: FlagPole<FuzzFlags>, context: EvaluationContext, details: FlagEvaluation<StoredValue?>
    ) throws(PropertyViolation) {
        let read: StoredValue?
        switch key {
        case "enabled": read = .bool(flags.value(\.enabled, for: context))
        case "limit": read = .signedInteger(Int64(flags.value(\.limit, for: context)))
        case "banner": read = .string(flags.value(\.banner, for: context))
        default: read = .double(flags.value(\.ratio, for: context))
        }
        guard read == details.value else {
            throw PropertyViolation("\(key) reads \(String(describing: read)) but evaluates to \(String(describing: details.value))")
        }
    }
}
