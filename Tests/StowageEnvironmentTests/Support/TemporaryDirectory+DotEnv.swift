#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageTestSupport

extension TemporaryDirectory {
    /// Writes a `.env` file named `.env` and gives its URL.
    @discardableResult
    func write(_ text: String) -> URL { write(text, to: ".env") }
}
