import Foundation
import Dispatch
@testable import StowageJSONFile
import StowageTestSupport
import Testing

/// No value of `maximumDepth` turns a deep file into a crash: the option is
/// bounded so that every operation over a document fits a thread's stack.
struct JSONFileStoreDepthTests {
    /// With `maximumDepth` at 40,000, opening and then writing a file nested
    /// that deep overflowed the stack in the recursive writer.
    @Test func aDepthBeyondTheSupportedOneIsBroughtWithinIt() {
        var options = JSONFileStore.Options(maximumDepth: 40_000)
        #expect(options.maximumDepth == JSONFileStore.Options.maximumSupportedDepth)
        options.maximumDepth = 0
        #expect(options.maximumDepth == 1)
        options.maximumDepth = 50_000
        #expect(options.maximumDepth == 1_000)
        #expect(JSONFileStore.Options(maximumDepth: 64).maximumDepth == 64)
    }

    @Test func aFileNestedFarBeyondTheLimitIsMovedAsideNotACrash() throws {
        let directory = TemporaryDirectory()
        writeFile(directory.file(), #"{"deep": "# + String(repeating: "[", count: 40_000) + String(repeating: "]", count: 40_000) + "}")
        let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none, maximumDepth: 40_000))
        #expect(store.lastError?.code == .corruptFile)
        try store.set(1, forKey: "after")
        try store.flush()
        #expect(directory.contents().contains { $0.hasPrefix("settings.json.corrupt-") })
    }

    /// At the deepest supported nesting every operation of the store runs on
    /// a small stack: open, read, decode, set under another key, write,
    /// compare, hash, release. The stack is that of a secondary thread on
    /// Apple platforms in an optimized build; a debug build, which uses
    /// about 4.5 times as much stack per level, gets 4 MiB.
    @Test func everyOperationAtTheDeepestSupportedNestingFitsASmallStack() throws {
        let directory = TemporaryDirectory()
        // The top-level object is one level; the value holds the rest, objects in objects.
        let levels = JSONFileStore.Options.maximumSupportedDepth - 1
        writeFile(directory.file(), #"{"deep": "# + String(repeating: #"{"a": "#, count: levels - 1) + "{}" + String(repeating: "}", count: levels - 1) + "}")
        #if DEBUG
        let stackSize = 4 << 20
        #else
        let stackSize = 512 << 10
        #endif
        let outcome = Collected<String>()
        try runOnThread(stackSize: stackSize) {
            let store = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none, maximumDepth: 1_000))
            guard store.lastError == nil, let value = try? store.value(forKey: "deep", as: StoredValue.self) else {
                return outcome.append("not read: \(String(describing: store.lastError))")
            }
            guard (try? store.value(forKey: "deep", as: Nest.self)) != nil else { return outcome.append("not decoded") }
            do {
                try store.set(value, forKey: "copy")
                try store.flush()
            } catch {
                return outcome.append("not written: \(error)")
            }
            var hasher = Hasher()
            hasher.combine(value)
            _ = hasher.finalize()
            let copy = try? store.value(forKey: "copy", as: StoredValue.self)
            outcome.append(copy == value ? "equal" : "different")
        }
        #expect(outcome.all == ["equal"])
        let reopened = JSONFileStore(url: directory.url(), options: .init(changeDetection: .none, maximumDepth: 1_000))
        #expect(reopened.lastError == nil)
        #expect((try reopened.snapshot()).entries.keys.sorted() == ["copy", "deep"])
    }

    /// `{"a": {"a": … {}}}`, decoded through Codable.
    final class Nest: Codable, Storable, @unchecked Sendable {
        let a: Nest?
    }

    private func runOnThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) throws {
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.stackSize = stackSize
        thread.start()
        finished.wait()
    }
}
