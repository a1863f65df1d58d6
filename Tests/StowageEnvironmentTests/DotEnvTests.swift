#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import Testing
import StowageTestSupport

/// The `.env` rules, each with a file of its own.
struct DotEnvTests {
    let files = TemporaryDirectory()

    /// The variables a `.env` file holding `text` defines, over `environment`.
    private func variables(
        _ text: String, environment: [String: String] = [:], overridesEnvironment: Bool = false
    ) throws -> [String: String] {
        let file = files.write(text)
        let store = try EnvironmentStore(dotEnv: .init(url: file, overridesEnvironment: overridesEnvironment), variables: environment)
        return store.environmentForChildProcess()
    }

    private func syntaxError(_ text: String) -> StorageError? {
        do {
            _ = try variables(text)
            return nil
        } catch {
            return error as? StorageError
        }
    }

    @Test func plainAssignmentsCommentsAndBlankLines() throws {
        let text = """
            # a comment
            NAME=value

              INDENTED = spaced out  
            EMPTY=
            dotted.name-with_dash=1
            """
        #expect(try variables(text) == ["NAME": "value", "INDENTED": "spaced out", "EMPTY": "", "dotted.name-with_dash": "1"])
    }

    @Test func exportIsIgnored() throws {
        #expect(try variables("export NAME=value\nexport\tOTHER=2\nexport=3") == ["NAME": "value", "OTHER": "2", "export": "3"])
    }

    @Test func commentsAfterUnquotedValuesNeedWhitespaceBefore() throws {
        #expect(try variables("A=value # comment\nB=val#ue\nC=#nothing\nD=x\t# tab") == ["A": "value", "B": "val#ue", "C": "", "D": "x"])
    }

    @Test func singleQuotesKeepEverything() throws {
        #expect(try variables(#"A='a \n ${B} "q" # not a comment'"#) == ["A": #"a \n ${B} "q" # not a comment"#])
    }

    @Test func backtickQuotesKeepEverything() throws {
        #expect(try variables("A=`it's \"both\" \\n`") == ["A": "it's \"both\" \\n"])
    }

    @Test func doubleQuotesUnderstandEscapes() throws {
        let parsed = try variables(#"A="line1\nline2\ttab \"q\" back\\slash \$HOME \x""#)
        #expect(parsed["A"] == "line1\nline2\ttab \"q\" back\\slash $HOME \\x")
    }

    @Test func quotedValuesMaySpanLines() throws {
        let text = "KEY=\"-----BEGIN-----\nabc\ndef\n-----END-----\"\nNEXT='one\ntwo'\nLAST=3"
        let parsed = try variables(text)
        #expect(parsed["KEY"] == "-----BEGIN-----\nabc\ndef\n-----END-----")
        #expect(parsed["NEXT"] == "one\ntwo")
        #expect(parsed["LAST"] == "3")
    }

    @Test func aCommentMayFollowAClosingQuote() throws {
        #expect(try variables("A=\"x\" # why\nB='y'   # because") == ["A": "x", "B": "y"])
    }

    @Test func expansionInUnquotedAndDoubleQuotedValuesOnly() throws {
        let text = """
            HOST=example.com
            URL=https://${HOST}/api
            QUOTED="${HOST}:${PORT:-8080}"
            LITERAL='${HOST}'
            MISSING=[${NOPE}]
            FROM_ENV=${HOME_DIR}/x
            DOLLAR=cost $5
            """
        let parsed = try variables(text, environment: ["HOME_DIR": "/home/ada"])
        #expect(parsed["URL"] == "https://example.com/api")
        #expect(parsed["QUOTED"] == "example.com:8080")
        #expect(parsed["LITERAL"] == "${HOST}")
        #expect(parsed["MISSING"] == "[]")
        #expect(parsed["FROM_ENV"] == "/home/ada/x")
        #expect(parsed["DOLLAR"] == "cost $5")
    }

    @Test func expansionSeesTheValueThatWins() throws {
        let text = "HOST=file.example\nURL=http://${HOST}"
        #expect(try variables(text, environment: ["HOST": "env.example"])["URL"] == "http://env.example")
        #expect(try variables(text, environment: ["HOST": "env.example"], overridesEnvironment: true)["URL"] == "http://file.example")
    }

    @Test func crlfLineEndingsAndAByteOrderMark() throws {
        let parsed = try variables("\u{FEFF}A=1\r\nB=\"two\r\nlines\"\r\nC=3\r\n")
        #expect(parsed == ["A": "1", "B": "two\nlines", "C": "3"])
    }

    @Test func theEnvironmentWinsUnlessTheFileOverridesIt() throws {
        let environment = ["SHARED": "from environment", "ONLY_ENV": "e"]
        let text = "SHARED=from file\nONLY_FILE=f"
        #expect(try variables(text, environment: environment) == ["SHARED": "from environment", "ONLY_ENV": "e", "ONLY_FILE": "f"])
        #expect(try variables(text, environment: environment, overridesEnvironment: true)["SHARED"] == "from file")
    }

    @Test func aLaterAssignmentWins() throws {
        #expect(try variables("A=1\nA=2") == ["A": "2"])
    }

    @Test(arguments: [
        ("A=1\nnot an assignment\n", 2),
        ("A=1\n\nB\"=2", 3),
        ("A=\"never closed\nB=2\n", 1),
        ("\n\nA='never closed", 3),
        ("A=\"x\" trailing", 1),
        ("A=${UNCLOSED", 1),
        ("1A=digits first", 1),
        ("A=${}", 1),
    ])
    func syntaxErrorsNameTheFileAndLine(text: String, line: Int) {
        let error = syntaxError(text)
        #expect(error?.code == .invalidDotEnv)
        #expect(error?.message.contains(files.file(".env")) == true)
        #expect(error?.message.contains("line \(line):") == true, "\(String(describing: error))")
    }

    @Test func aMissingFileIsAnErrorOnlyWhenRequired() throws {
        let missing = files.url("missing.env")
        let store = try EnvironmentStore(dotEnv: .init(url: missing), variables: ["A": "1"])
        #expect(store.environmentForChildProcess() == ["A": "1"])
        #expect(throws: StorageError.self) {
            try EnvironmentStore(dotEnv: .init(url: missing, isRequired: true), variables: [:])
        }
    }

    @Test func typedValuesFromAFile() throws {
        let file = files.write("export PORT=0x1F90\nDEBUG=yes\nHOSTS=\"a.example, b.example\"\n")
        let store = try EnvironmentStore(dotEnv: .init(url: file), variables: [:])
        #expect(try store.value(forKey: "port", as: Int.self) == 8080)
        #expect(try store.value(forKey: "debug", as: Bool.self) == true)
        #expect(try store.value(forKey: "hosts", as: [String].self) == ["a.example", "b.example"])
    }
}

/// Found by the `dotenv-parser` fuzz target (inputs under `Tools/Fuzz/Regressions`).
extension DotEnvTests {
    /// Each `A=${A}${A}` line doubled the value, so a .env file of a few
    /// hundred bytes asked for gigabytes and never finished loading.
    @Test func expansionsStopAtTheLengthOfAnEnvironmentVariable() throws {
        let doubling = "A=0123456789abcdef\n" + String(repeating: "A=${A}${A}\n", count: 40)
        let error = #expect(throws: StorageError.self) {
            _ = try EnvironmentStore(dotEnv: .init(url: files.write(doubling)), variables: [:])
        }
        #expect(error?.code == .invalidDotEnv)
        #expect(error?.message.contains("line 15") == true)
        #expect(error?.message.contains("131072 bytes") == true)

        // Up to the limit, expansions build the value as before.
        let filling = "A=" + String(repeating: "x", count: 65_536) + "\nB=${A}${A}\n"
        let store = try EnvironmentStore(dotEnv: .init(url: files.write(filling)), variables: [:])
        #expect(try store.value(forKey: "b", as: String.self)?.utf8.count == 131_072)
    }
}
