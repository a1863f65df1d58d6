extension StoredValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension StoredValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension StoredValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .signedInteger(value) }
}

extension StoredValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension StoredValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension StoredValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: StoredValue...) { self = .array(elements) }
}

extension StoredValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, StoredValue)...) {
        // Later duplicates win, as they do when a dictionary is assigned key by key.
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
