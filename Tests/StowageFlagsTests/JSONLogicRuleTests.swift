import Stowage
import StowageJSON
import Testing

@testable import StowageFlags

/// The JsonLogic evaluator of flag targeting: each operator as flagd's
/// evaluators apply it, rules checked once, and limits on hostile rules.
/// (The outside suites run in `Scripts/check-json-logic-compat.sh`.)
struct JSONLogicRuleTests {
    private func evaluate(_ rule: String, _ data: String = "null") throws -> StoredValue? {
        try JSONLogicRule(StoredValue(jsonText: rule)).evaluate(LogicValue(StoredValue(jsonText: data))).storedValue
    }

    @Test func variablesFollowDottedPathsIndexesAndDefaults() throws {
        let user = #"{"user": {"tier": "gold", "tags": ["beta", "eu"], "plan": null}}"#
        #expect(try evaluate(#"{"var": "user.tier"}"#, user) == "gold")
        #expect(try evaluate(#"{"var": "user.tags.1"}"#, user) == "eu")
        #expect(try evaluate(#"{"var": ["user.country", "unknown"]}"#, user) == "unknown")
        // flagd's evaluator gives the default for a null it finds, too.
        #expect(try evaluate(#"{"var": ["user.plan", "free"]}"#, user) == "free")
        #expect(try evaluate(#"{"missing": ["user.tier", "user.country", "user.plan"]}"#, user) == ["user.country", "user.plan"])
        #expect(try evaluate(#"{"missing_some": [1, ["user.tier", "user.country"]]}"#, user) == [])
    }

    /// An evaluation for a context builds only the entries the rule can
    /// read: every `var` name written in it, what `fractional` buckets by,
    /// and everything when a name is computed or the rule reads the whole data.
    @Test func aRuleKnowsWhichEntriesOfTheDataItCanRead() throws {
        func names(_ rule: String) throws -> Set<String>? { try JSONLogicRule(StoredValue(jsonText: rule)).dataNames }
        #expect(try names(#"{"if": [{"==": [{"var": "user.tier"}, "gold"]}, {"var": ["plan", {"var": "fallback"}]}, "x"]}"#) == ["user", "plan", "fallback"])
        #expect(try names(#"{"fractional": [["a", 1], ["b", 1]]}"#) == ["targetingKey", "$flagd"])
        #expect(try names(#"{"var": {"cat": ["us", "er"]}}"#) == nil)
        #expect(try names(#"{"missing": ["a", "b"]}"#) == nil)
        #expect(try names(#"{"map": [[1, 2], {"var": ""}]}"#) == nil)
        #expect(try names(#"{"+": [1, 2]}"#) == [])
    }

    @Test func controlOperatorsReturnTheValueThatDecided() throws {
        #expect(try evaluate(#"{"if": [false, "a", {"==": [1, "1"]}, "b", "c"]}"#) == "b")
        #expect(try evaluate(#"{"if": [false, "a"]}"#) == .null)
        #expect(try evaluate(#"{"and": [1, "", 2]}"#) == "")
        #expect(try evaluate(#"{"or": [0, [], "x"]}"#) == "x")
        #expect(try evaluate(#"{"!": [[]]}"#) == true)
        #expect(try evaluate(#"{"!!": ["0"]}"#) == true)
    }

    @Test func comparisonsConvertAsFlagdsEvaluatorDoes() throws {
        #expect(try evaluate(#"{"==": [1, "1"]}"#) == true)
        #expect(try evaluate(#"{"==": [null, 0]}"#) == true)
        #expect(try evaluate(#"{"==": [null, ""]}"#) == false)
        #expect(try evaluate(#"{"===": [1, "1"]}"#) == false)
        #expect(try evaluate(#"{"===": [1, true]}"#) == false)
        #expect(try evaluate(#"{"<": ["10", "9"]}"#) == true)  // two strings compare as text
        #expect(try evaluate(#"{"<": [9, "10"]}"#) == true)  // a number makes it numeric
        #expect(try evaluate(#"{"<": [1, 5, 3]}"#) == false)
        #expect(try evaluate(#"{"<=": [1, 1, 3]}"#) == true)
        #expect(try evaluate(#"{">": [3, 2, 1]}"#) == true)
        #expect(try evaluate(#"{">": [1, "A"]}"#) == false)
        // Text compares by code point, as in JavaScript and Python: "é" composed is not "e" and a combining accent.
        #expect(try evaluate(#"{"==": ["\u00e9", "e\u0301"]}"#) == false)
        #expect(try evaluate(#"{"in": ["\u00e9", "cafe\u0301"]}"#) == false)
    }

    @Test func arithmeticReadsNumbersFromTextAndBooleans() throws {
        #expect(try evaluate(#"{"+": [1, "2", true, null]}"#) == 4)
        #expect(try evaluate(#"{"*": []}"#) == 1)
        #expect(try evaluate(#"{"-": ["5"]}"#) == -5)
        #expect(try evaluate(#"{"/": [1, 4]}"#) == 0.25)
        #expect(try evaluate(#"{"%": [-8, 3]}"#) == -2)
        #expect(try evaluate(#"{"max": [1, "7", 3]}"#) == 7)
        // NaN and the infinities are no JSON value: no result, for a flag an error.
        #expect(try evaluate(#"{"+": ["Hey", 1]}"#) == nil)
        #expect(try evaluate(#"{"/": [1, 0]}"#) == nil)
        #expect(try evaluate(#"{"-": [""]}"#) == nil)
    }

    @Test func textOperatorsWriteNumbersAsJavaScriptDoes() throws {
        #expect(try evaluate(#"{"cat": ["v", 1.5, "-", 100, "-", null, true]}"#) == "v1.5-100-true")
        #expect(try evaluate(#"{"cat": [0.1, " ", 1e21, " ", 0.0000015, " ", 0.000001]}"#) == "0.1 1e+21 0.0000015 0.000001")
        #expect(LogicValue.javaScriptString(of: 0.1 + 0.2) == "0.30000000000000004")
        #expect(LogicValue.javaScriptString(of: 1.5e-7) == "1.5e-7")
        #expect(LogicValue.javaScriptString(of: 1.2345678901234568e20) == "123456789012345680000")
        #expect(LogicValue.javaScriptString(of: -0.0) == "0")
        #expect(try evaluate(#"{"substr": ["jsonlogic", -5, -2]}"#) == "log")
        #expect(try evaluate(#"{"substr": ["jsonlogic", 4]}"#) == "logic")
        #expect(try evaluate(#"{"in": ["log", "jsonlogic"]}"#) == true)
        #expect(try evaluate(#"{"in": [1, ["1", 2]]}"#) == false)
    }

    @Test func iteratorsTakeEachElementAsTheirData() throws {
        let data = #"{"scores": [3, 8, 5]}"#
        #expect(try evaluate(#"{"map": [{"var": "scores"}, {"*": [{"var": ""}, 2]}]}"#, data) == [6, 16, 10])
        #expect(try evaluate(#"{"filter": [{"var": "scores"}, {">": [{"var": ""}, 4]}]}"#, data) == [8, 5])
        #expect(
            try evaluate(#"{"reduce": [{"var": "scores"}, {"+": [{"var": "current"}, {"var": "accumulator"}]}, 10]}"#, data) == 26)
        #expect(try evaluate(#"{"all": [{"var": "scores"}, {">": [{"var": ""}, 2]}]}"#, data) == true)
        #expect(try evaluate(#"{"all": [[], true]}"#) == false)
        #expect(try evaluate(#"{"some": [{"var": "scores"}, {">": [{"var": ""}, 7]}]}"#, data) == true)
        #expect(try evaluate(#"{"none": [{"var": "missing"}, true]}"#, data) == true)
        #expect(try evaluate(#"{"merge": [[1], 2, [[3]]]}"#) == [1, 2, [3]])
    }

    @Test func anUnknownOperatorIsRefusedWhenTheRuleIsCheckedNamingItsPlace() throws {
        let rule = try StoredValue(jsonText: #"{"if": [true, "a", {"and": [true, {"starts-with": ["a", "b"]}]}]}"#)
        #expect(throws: JSONLogicError(path: "$.if[2].and[1].starts-with", message: #"unknown operator "starts-with""#)) {
            try JSONLogicRule(rule)
        }
    }

    @Test func objectsOfOtherThanOneKeyAreValues() throws {
        #expect(try evaluate(#"{"var": "settings"}"#, #"{"settings": {"a": 1, "b": 2}}"#) == ["a": 1, "b": 2])
        #expect(try evaluate(#"[{"var": "a"}, {}, {"x": 1, "y": 2}]"#, #"{"a": 3}"#) == [3, [:], ["x": 1, "y": 2]])
    }

    @Test func aRuleNestedTooDeeplyIsRefused() throws {
        let deep = String(repeating: #"{"!": ["#, count: 70) + "true" + String(repeating: "]}", count: 70)
        let error = try #require(throws: JSONLogicError.self) { try JSONLogicRule(StoredValue(jsonText: deep)) }
        #expect(error.message.contains("deeper than 64"))
        let shallow = String(repeating: #"{"!": ["#, count: 60) + "true" + String(repeating: "]}", count: 60)
        #expect(try evaluate(shallow) == true)
    }

    @Test func anEvaluationStopsAfterItsStepsNamingThePlace() throws {
        // 500 × 500 inner evaluations: far beyond the 100,000 steps one evaluation may take.
        let data = try StoredValue(jsonText: "{\"items\": [\(Array(repeating: "0", count: 500).joined(separator: ","))]}")
        let smallRule = try JSONLogicRule(StoredValue(jsonText: #"{"map": [{"var": "items"}, {"+": [{"var": ""}, 1]}]}"#))
        #expect(try smallRule.evaluate(LogicValue(data)).storedValue == .array(Array(repeating: 1, count: 500)))
        let nested = try JSONLogicRule(
            StoredValue(jsonText: #"{"map": [{"var": "items"}, {"map": [[\#(Array(repeating: "1", count: 500).joined(separator: ","))], {"+": [1, 1]}]}]}"#))
        let error = try #require(throws: JSONLogicError.self) { try nested.evaluate(LogicValue(data)) }
        #expect(error.message.contains("more than 100000 steps"), "\(error)")
    }
}
