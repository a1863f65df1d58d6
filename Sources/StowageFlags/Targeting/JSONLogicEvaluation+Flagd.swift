/// flagd's own operations: `fractional`, `sem_ver`, `starts_with` and
/// `ends_with`. Like flagd's evaluators, each gives null (the flag's
/// default variant) rather than failing when its arguments do not fit.
extension JSONLogicEvaluation {
    /// `fractional`: a variant by weighted, sticky bucketing of the first
    /// argument, or, when the first argument is already a variant list, of
    /// the flag's key and the targeting key together.
    static func fractional(_ values: [LogicValue], data: LogicValue) -> LogicValue {
        guard let first = values.first else { return .null }
        let bucketBy: LogicValue
        var fractions = values[...]
        if case .array = first {
            guard case .string(let targetingKey)? = data.property("targetingKey"), !targetingKey.isEmpty else { return .null }
            let flagKey: LogicValue
            if case .string(let key)? = data.property("$flagd")?.property("flagKey") { flagKey = .string(key) } else { flagKey = .string("") }
            bucketBy = .array([flagKey, .string(targetingKey)])
        } else {
            bucketBy = first
            fractions = fractions.dropFirst()
        }
        if case .null = bucketBy { return .null }
        var variants: [(variant: LogicValue, weight: UInt64)] = []
        var total: UInt64 = 0
        for fraction in fractions {
            guard case .array(let pair) = fraction, pair.count == 1 || pair.count == 2 else { return .null }
            var weight: UInt64 = 1
            if pair.count == 2 {
                guard case .number(let number) = pair[1], number.rounded(.towardZero) == number, abs(number) <= 0x1p62 else { return .null }
                weight = number < 0 ? 0 : UInt64(number)
            }
            variants.append((pair[0], weight))
            total += weight
            guard total <= UInt64(Int32.max) else { return .null }
        }
        guard total > 0 else { return .null }
        let bucket = FractionalBucket.bucket(of: bucketBy, totalWeight: total)
        var end: UInt64 = 0
        for (variant, weight) in variants {
            end += weight
            if bucket < end { return variant }
        }
        return .null
    }

    /// `sem_ver`: a version, an operator (`=`, `!=`, `<`, `<=`, `>`, `>=`,
    /// `^` same major, `~` same major and minor) and a version.
    static func semanticVersionComparison(_ values: [LogicValue]) -> LogicValue {
        guard values.count == 3, case .string(let operation) = values[1],
            let a = SemanticVersion(values[0].javaScriptString), let b = SemanticVersion(values[2].javaScriptString)
        else { return .null }
        switch operation {
        case "=": return .bool(a == b)
        case "!=": return .bool(a != b)
        case "<": return .bool(a < b)
        case "<=": return .bool(a <= b)
        case ">": return .bool(a > b)
        case ">=": return .bool(a >= b)
        case "^": return .bool(a.major == b.major)
        case "~": return .bool(a.major == b.major && a.minor == b.minor)
        default: return .null
        }
    }

    /// `fractional` as flagd v0.16.1's Go evaluator computes it (see
    /// ``FractionalBucketing/flagdGo``): text bucketed by its UTF-8 bytes,
    /// else the flag's key joined to the targeting key.
    static func goFractional(_ values: [LogicValue], data: LogicValue) -> LogicValue {
        guard let first = values.first else { return .null }
        var fractions = values[...]
        let bucketBy: String
        if case .string(let text) = first {
            bucketBy = text
            fractions = fractions.dropFirst()
        } else {
            // A null first argument (an attribute the context lacks) is dropped; anything else is read as a variant.
            if case .null = first { fractions = fractions.dropFirst() }
            guard case .string(let targetingKey)? = data.property("targetingKey"), !targetingKey.isEmpty else { return .null }
            var flagKey = ""
            if case .string(let key)? = data.property("$flagd")?.property("flagKey") { flagKey = key }
            bucketBy = flagKey + targetingKey
        }
        var variants: [(variant: LogicValue, weight: UInt64)] = []
        var total: UInt64 = 0
        for fraction in fractions {
            guard case .array(let pair) = fraction, let variant = pair.first else { return .null }
            switch variant {
            case .string, .bool, .number, .null: break
            default: return .null
            }
            var weight: UInt64 = 1
            if pair.count >= 2 {
                switch pair[1] {
                case .null: break
                case .number(let number):
                    guard number.rounded(.towardZero) == number, number <= Double(Int32.max) else { return .null }
                    weight = number < 0 ? 0 : UInt64(number)
                default: return .null
                }
            }
            variants.append((variant, weight))
            total += weight
        }
        guard total > 0, total <= UInt64(Int32.max) else { return .null }
        let bucket = (UInt64(FractionalBucket.murmurHash3(Array(bucketBy.utf8))) * total) >> 32
        var end: UInt64 = 0
        for (variant, weight) in variants {
            end += weight
            if bucket < end { return variant }
        }
        return .null
    }

    /// `starts_with` and `ends_with`: two strings, else null.
    static func affixComparison(_ values: [LogicValue], prefix: Bool) -> LogicValue {
        guard values.count == 2, case .string(let text) = values[0], case .string(let affix) = values[1] else { return .null }
        return .bool(
            prefix ? text.unicodeScalars.starts(with: affix.unicodeScalars) : text.unicodeScalars.reversed().starts(with: affix.unicodeScalars.reversed()))
    }
}
