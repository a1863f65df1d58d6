import Stowage
import StowageJSON
import Testing

@testable import StowageFlags

/// flagd's own operations. Every expected value here is what flagd's
/// evaluator, PyPI's openfeature-flagd-core 2.0.0, gives for the same rule
/// and data (`jsonLogic(rule, data, OPERATORS)`); CI compares the two on
/// 20,000 generated pairs besides (Scripts/check-json-logic-compat.sh).
struct FlagdOperationTests {
    private func evaluate(_ rule: String, _ data: String = "{}") throws -> StoredValue? {
        try JSONLogicRule(StoredValue(jsonText: rule)).evaluate(LogicValue(StoredValue(jsonText: data))).storedValue
    }

    @Test func theHashAndItsInputAreFlagdsBucketForBucket() throws {
        // MurmurHash3 x86 32-bit, seed 0, as PyPI's mmh3.hash(bytes, signed=False).
        #expect(FractionalBucket.murmurHash3([]) == 0)
        #expect(FractionalBucket.murmurHash3(Array("hello".utf8)) == 613_153_351)
        #expect(FractionalBucket.murmurHash3(Array("abcd".utf8)) == 1_139_631_978)
        #expect(FractionalBucket.murmurHash3(Array("abcde".utf8)) == 3_902_511_862)
        // Canonical CBOR, as cbor2.dumps(value, canonical=True).
        func cbor(_ value: LogicValue) -> String {
            var bytes: [UInt8] = []
            FractionalBucket.encode(value, into: &bytes)
            return bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        }
        #expect(cbor(.array([.string("flag"), .string("user-1")])) == "8264666c616766757365722d31")
        #expect(cbor(.number(1.5)) == "f93e00")
        #expect(cbor(.number(0.1)) == "fb3fb999999999999a")
        #expect(cbor(.number(-1)) == "20")
        #expect(cbor(.number(1_099_511_627_776)) == "1b0000010000000000")
        #expect(cbor(.object(["aa": .number(1), "b": .number(2)])) == "a261620262616101")
    }

    @Test func fractionalSplitsByFlagAndTargetingKey() throws {
        let rule = #"{"fractional": [["red", 50], ["blue", 50]]}"#
        func variant(_ user: String) throws -> StoredValue? {
            try evaluate(rule, #"{"targetingKey": "\#(user)", "$flagd": {"flagKey": "checkout"}}"#)
        }
        #expect(try variant("user-1") == "blue")
        #expect(try variant("user-7") == "red")
        #expect(try variant("user-9") == "red")
        #expect(try variant("user-8") == "blue")
        // Without a targeting key the shorthand has nothing to bucket: null, the flag's default.
        #expect(try evaluate(#"{"fractional": [["red", 50]]}"#) == .null)
        #expect(try evaluate(#"{"fractional": [["red", 0], ["blue", 0]]}"#, #"{"targetingKey": "u"}"#) == .null)
    }

    @Test func fractionalBucketsAnyValueItIsGiven() throws {
        let weighted = #"{"fractional": [{"var": "email"}, ["a", 10], ["b", 20], ["c", 70]]}"#
        #expect(try evaluate(weighted, #"{"email": "bob@example.com"}"#) == "c")
        #expect(try evaluate(weighted, #"{"email": "日本@example.jp"}"#) == "c")
        let even = #"{"fractional": [{"var": "n"}, ["a"], ["b"], ["c"]]}"#
        #expect(try evaluate(even, #"{"n": 1.5}"#) == "a")
        #expect(try evaluate(even, #"{"n": 123456789}"#) == "b")
    }

    @Test func semanticVersionsCompareAsSemVerSays() throws {
        #expect(try evaluate(#"{"sem_ver": ["v1.2.3", ">=", "1.2"]}"#) == true)
        #expect(try evaluate(#"{"sem_ver": ["1.2.3-alpha.10", ">", "1.2.3-alpha.9"]}"#) == true)
        #expect(try evaluate(#"{"sem_ver": ["1.2.3-alpha", "<", "1.2.3"]}"#) == true)
        #expect(try evaluate(#"{"sem_ver": ["2.1.9", "~", "2.1.0"]}"#) == true)
        #expect(try evaluate(#"{"sem_ver": ["2.9.0", "^", "2.1.0"]}"#) == true)
        #expect(try evaluate(#"{"sem_ver": ["1.2.3+build.7", "=", "1.2.3"]}"#) == true)
        // Not a version (a leading zero), or an operator sem_ver does not have: null.
        #expect(try evaluate(#"{"sem_ver": ["01.2.3", "=", "1.2.3"]}"#) == .null)
        #expect(try evaluate(#"{"sem_ver": ["1.2.3", "==", "1.2.3"]}"#) == .null)
    }

    @Test func affixesCompareStringsOnly() throws {
        #expect(try evaluate(#"{"starts_with": ["bob@example.com", "bob"]}"#) == true)
        #expect(try evaluate(#"{"ends_with": ["bob@example.com", ".org"]}"#) == false)
        #expect(try evaluate(#"{"ends_with": [1, "1"]}"#) == .null)
    }
}
