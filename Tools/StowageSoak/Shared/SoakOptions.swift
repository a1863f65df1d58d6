#if canImport(Glibc)
import Glibc
#endif

/// `--name value` pairs from the command line, read as the soak needs them.
struct SoakOptions {
    private var values: [String: String] = [:]
    private(set) var flags: Set<String> = []

    /// Parses `arguments` (without the program name and role).
    init(_ arguments: some Sequence<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("--") else { Self.fail("unexpected argument \(argument)") }
            let name = String(argument.dropFirst(2))
            if Self.flagNames.contains(name) {
                flags.insert(name)
            } else if let value = iterator.next() {
                values[name] = value
            } else {
                Self.fail("\(argument) needs a value")
            }
        }
    }

    /// Options that take no value.
    static let flagNames: Set<String> = ["keep", "help"]

    func string(_ name: String) -> String? { values[name] }

    func string(_ name: String, default fallback: String) -> String { values[name] ?? fallback }

    func integer(_ name: String, default fallback: Int) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value >= 0 else { Self.fail("--\(name) must be a whole number, not \(text)") }
        return value
    }

    func number(_ name: String, default fallback: Double) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), value >= 0 else { Self.fail("--\(name) must be a number, not \(text)") }
        return value
    }

    func required(_ name: String) -> String {
        guard let value = values[name] else { Self.fail("--\(name) is required") }
        return value
    }

    static func fail(_ message: String) -> Never {
        let line = "StowageSoak: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
}
