#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageEnvironment

/// The environment store reading one variable's text as every kind of type.
///
/// The first input byte picks the array separator (`0` a comma, `1` `;`,
/// `2` `:`, `3` a space, `4` `|`, `5` `\`, `6` a tab, `7` `é`, `8` CR LF,
/// `9` an emoji of several scalars); the rest, repaired to UTF-8, is the
/// variable's text. Properties checked, beyond "no text traps":
///
/// - a read either succeeds or throws a `StorageError`;
/// - whitespace (space, tab, CR, LF) around the text changes nothing, except
///   for the types that keep text as it is (`String`, `StoredValue` and
///   types read as a `String`);
/// - a value read can be written back through the store, and the text a
///   child process gets reads back, to an equal value where the text form
///   keeps everything (dates keep milliseconds only, and JSON has no NaN or
///   infinity inside arrays), and gives the same text when written again.
package struct EnvironmentValueFuzzCheck: FuzzCheck {
    package static let name = "environment-values"

    private static let separators: [Character] = [",", ";", ":", " ", "|", "\\", "\t", "é", "\r\n", "👩‍💻"]
    private static let variable = "VALUE"

    package init() {}

    package func check(_ input: [UInt8]) throws(PropertyViolation) {
        let separator = input.first.map { Self.separators[Int($0 &- UInt8(ascii: "0")) % Self.separators.count] } ?? ","
        let text = String(decoding: input.dropFirst(), as: UTF8.self)
        // No secrets: an error then quotes the text, which exercises that path too, and the
        // name fragments' substring search, the largest cost of a failed read, is skipped.
        let options = EnvironmentStore.Options(keyMapping: .exact, secrets: .none, arraySeparator: separator)
        var run = Run(text: text, padding: input.count, options: options)

        try run.read(String.self, keepsText: true)
        try run.read(StoredValue.self, keepsText: true)
        try run.read(String?.self, keepsText: true)
        try run.read(FuzzTheme.self, keepsText: true)
        try run.read(Bool.self)
        try run.read(Int.self)
        try run.read(Int8.self)
        try run.read(Int16.self)
        try run.read(Int32.self)
        try run.read(Int64.self)
        try run.read(Int128.self)
        try run.read(UInt.self)
        try run.read(UInt8.self)
        try run.read(UInt16.self)
        try run.read(UInt32.self)
        try run.read(UInt64.self)
        try run.read(UInt128.self)
        try run.read(Double.self)
        try run.read(Float.self)
        try run.read(Data.self)
        try run.read(Date.self, isExact: false)
        try run.read(URL.self)
        try run.read(UUID.self)
        try run.read(Int?.self)
        try run.read(Double?.self)
        try run.read(Date?.self, isExact: false)
        try run.read([String].self)
        try run.read([Int].self)
        try run.read([UInt8].self)
        try run.read([Double].self)
        try run.read([Bool].self)
        try run.read([String?].self)
        try run.read([Int?].self)
        try run.read([Data].self)
        try run.read([Date].self, isExact: false)
        try run.read([URL].self)
        try run.read([UUID].self)
        try run.read([[Int]].self)
        try run.read([FuzzTheme?].self)
        try run.read([FuzzLevel].self)
        try run.read(Set<String>.self)
        try run.read(Set<Int>.self)
        try run.read([String: Int].self)
        try run.read([String: [String]].self)
        try run.read([String: StoredValue].self)
        try run.read(FuzzLevel.self)
        try run.read(FuzzSerialNumber.self)
        try run.read(FuzzShape.self)
        try run.read(FuzzProfile.self, isExact: false)
        try run.checkWrittenValues()
    }

    /// One input's reads, and the values read, written back.
    ///
    /// Every type reads the same few stores, and every value read is written
    /// under a key of its own to one store, so an input costs a handful of
    /// stores instead of several per type.
    private struct Run {
        /// The text as `VALUE`, and with whitespace around it as `PADDED`.
        private let source: EnvironmentStore
        private let options: EnvironmentStore.Options
        private let writer: EnvironmentStore
        /// How to read each written value back, keyed by the variable it was written to.
        private var readBacks: [(name: String, typeName: String, readBack: ReadBack)] = []

        /// Reads a written value back from `reader` as its own type, checks it,
        /// and writes it again to `writer` under the same name; false when the
        /// text written can not hold the value, so there is nothing to write again.
        typealias ReadBack = (_ reader: EnvironmentStore, _ writer: EnvironmentStore) throws(PropertyViolation) -> Bool

        private static let paddings = [(" ", "\r\n"), ("\t\n", " \r"), ("\r\n", ""), ("", "\n\t")]

        /// - Parameter padding: which whitespace goes around the text for `PADDED`.
        init(text: String, padding: Int, options: EnvironmentStore.Options) {
            let (before, after) = Self.paddings[padding % Self.paddings.count]
            self.options = options
            source = EnvironmentStore(variables: ["VALUE": text, "PADDED": before + text + after], options: options)
            writer = EnvironmentStore(variables: [:], options: options)
        }

        /// - Parameters:
        ///   - keepsText: whether the type reads the text as it is, whitespace and all.
        ///   - isExact: whether the type's text form keeps every value exactly.
        mutating func read<Value: Storable & Equatable>(
            _ type: Value.Type, keepsText: Bool = false, isExact: Bool = true
        ) throws(PropertyViolation) {
            let outcome = Self.read(Value.self, from: source, name: "VALUE")
            if case .failure(let error) = outcome, !(error is StorageError) {
                throw PropertyViolation("reading \(Value.self) threw \(Swift.type(of: error)), not StorageError: \(error)")
            }
            if !keepsText, !Self.sameOutcome(outcome, Self.read(Value.self, from: source, name: "PADDED")) {
                throw PropertyViolation("reading \(Value.self) gives another outcome with whitespace around the text")
            }
            guard case .success(let value?) = outcome else { return }
            let name = "WRITTEN_\(readBacks.count)"
            let stored: StoredValue
            do {
                stored = try value.storedValue()
                try Self.write(stored, to: writer, name: name)
            } catch {
                throw PropertyViolation("a \(Value.self) read from the environment can not be written back: \(error)")
            }
            readBacks.append(
                (
                    name, "\(Value.self)",
                    { (reader, rewriter) throws(PropertyViolation) in
                        try Self.readBack(value, stored: stored, isExact: isExact, from: reader, name: name, to: rewriter)
                    }
                ))
        }

        /// Reads every value written back from the text a child process
        /// would get, writes it again, and compares the texts.
        func checkWrittenValues() throws(PropertyViolation) {
            let written = writer.environmentForChildProcess()
            let reader = EnvironmentStore(variables: written, options: options)
            let rewriter = EnvironmentStore(variables: [:], options: options)
            var compared: [(name: String, typeName: String)] = []
            for (name, typeName, readBack) in readBacks where try readBack(reader, rewriter) { compared.append((name, typeName)) }
            let rewritten = rewriter.environmentForChildProcess()
            for (name, typeName) in compared where rewritten[name] != written[name] {
                throw PropertyViolation("a \(typeName) written to the environment, read back and written again gives other text")
            }
        }

        private static func readBack<Value: Storable & Equatable>(
            _ value: Value, stored: StoredValue, isExact: Bool,
            from reader: EnvironmentStore, name: String, to rewriter: EnvironmentStore
        ) throws(PropertyViolation) -> Bool {
            let outcome = read(Value.self, from: reader, name: name)
            guard case .success(let reread) = outcome else {
                // JSON, which writes arrays and dictionaries, has no NaN or infinity.
                if stored.containsNonFiniteDoubleInContainer { return false }
                throw PropertyViolation("a \(Value.self) written to the environment does not read back from the text written")
            }
            guard let reread else {
                // Writing a value whose stored form is null removes the variable.
                guard stored == .null else { throw PropertyViolation("writing a \(Value.self) that is not nil removed the variable") }
                return true
            }
            guard !isExact || stored.containsNaN || stored.containsNonFiniteDoubleInContainer || reread == value else {
                throw PropertyViolation("a \(Value.self) written to the environment reads back as another value")
            }
            do {
                try write(try reread.storedValue(), to: rewriter, name: name)
            } catch {
                throw PropertyViolation("a \(Value.self) read back from the environment can not be written again: \(error)")
            }
            return true
        }

        /// Writes as `set(_:forKey:)` does, a null removing the variable, but
        /// without making a reference: the registry of references sweeps dead
        /// ones lazily, so libFuzzer would see memory kept after every input
        /// and run its leak check each time, at a tenth of the speed.
        private static func write(_ stored: StoredValue, to store: EnvironmentStore, name: String) throws {
            if stored == .null {
                try store.removeStoredValue(forKey: name, .granted)
            } else {
                try store.setStoredValue(stored, forKey: name, .granted)
            }
        }

        private static func read<Value: Storable>(_ type: Value.Type, from store: EnvironmentStore, name: String) -> Result<Value?, any Error> {
            Result { try store.value(forKey: name, as: Value.self) }
        }

        /// Both failed, or both read values with equal stored forms.
        private static func sameOutcome<Value: Storable>(_ first: Result<Value?, any Error>, _ second: Result<Value?, any Error>) -> Bool {
            switch (first, second) {
            case (.failure, .failure): true
            case let (.success(a), .success(b)): (try? a?.storedValue()) == (try? b?.storedValue())
            default: false
            }
        }
    }
}
