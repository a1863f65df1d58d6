import Foundation
import StowageJSON
import StowageFlags

/// A value typed on the command line: a JSON literal (`true`, `250`, `1.5`,
/// `"dark"`, `[1, 2]`, `{"burst": 5}`), or, when the text is not JSON, the
/// text itself as a string, so `dark` and `"dark"` are the same value.
enum CommandLineValue {
    /// The rule, as `--help` states it.
    static let rule = """
        VALUE is read as a JSON literal (true, 250, 1.5, "dark", [1, 2], {"burst": 5}); \
        text that is not JSON is taken as a string, so dark and "dark" are the same.
        """

    static func parse(_ text: String) -> StoredValue {
        guard let value = try? JSONDecoder().decode(StoredValue.self, from: Data(text.utf8)) else { return .string(text) }
        return value
    }
}

extension StoredValue {
    /// Compact JSON text, for output: `true`, `250`, `"dark"`, `{"burst":5}`.
    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return description }
        return String(decoding: data, as: UTF8.self)
    }
}
