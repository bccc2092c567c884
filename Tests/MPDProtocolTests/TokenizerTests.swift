import Testing
@testable import MPDProtocol

private func tokenize(_ line: String) -> Tokenizer.Outcome {
    Tokenizer.tokenize(Array(line.utf8))
}

private func arguments(_ count: Int) -> String {
    "find" + String(repeating: " a", count: count)
}

/// MPD's request tokenizer (`src/util/Tokenizer.cxx`, `src/command/AllCommands.cxx:command_process`).
struct TokenizerTests {
    static let validLines: [(String, Request)] = [
        ("play", Request(command: "play")),
        ("play 1", Request(command: "play", arguments: ["1"])),
        ("play9_x", Request(command: "play9_x")),
        ("Play", Request(command: "Play")),
        // Blanks are any bytes ≤ 0x20, in runs.
        ("add a\tb", Request(command: "add", arguments: ["a", "b"])),
        ("add\ta   b\u{0B}\u{01}c", Request(command: "add", arguments: ["a", "b", "c"])),
        ("add  \"x\"", Request(command: "add", arguments: ["x"])),
        // Quoting: a backslash escapes any byte, `\n` is just `n`.
        (#"add "a b""#, Request(command: "add", arguments: ["a b"])),
        (#"add "a\"b\\c""#, Request(command: "add", arguments: [#"a"b\c"#])),
        (#"add "a\nb\'""#, Request(command: "add", arguments: ["anb'"])),
        (#"add """#, Request(command: "add", arguments: [""])),
        (#"add "" "x""#, Request(command: "add", arguments: ["", "x"])),
        (#"add "it's""#, Request(command: "add", arguments: ["it's"])),
        ("add \"a\"\t\"b\"", Request(command: "add", arguments: ["a", "b"])),
        // Unquoted: no escapes, anything above 0x20 but quotes.
        (#"add a\b"#, Request(command: "add", arguments: [#"a\b"#])),
        ("add (Artist==x) +1 -1 1:2 ∞", Request(command: "add", arguments: ["(Artist==x)", "+1", "-1", "1:2", "∞"])),
        // MALP's `addid "url"  N`.
        (#"addid "http://x/y"  3"#, Request(command: "addid", arguments: ["http://x/y", "3"])),
        (#"find "(Artist == \"foo\\'bar\\\"\")""#, Request(command: "find", arguments: [#"(Artist == "foo\'bar\"")"#])),
    ]

    @Test(arguments: validLines)
    func valid(_ line: String, _ expected: Request) {
        #expect(tokenize(line) == .request(expected))
    }

    static let errorLines: [(String, ACKError)] = [
        (#"add "abc"#, ACKError(.unknown, #"Missing closing '"'"#)),
        (#"add "abc\"#, ACKError(.unknown, #"Missing closing '"'"#)),
        (#"add "abc\""#, ACKError(.unknown, #"Missing closing '"'"#)),
        (#"add ""#, ACKError(.unknown, #"Missing closing '"'"#)),
        (#"add "a"b"#, ACKError(.unknown, #"Space expected after closing '"'"#)),
        (#"add "a""b""#, ACKError(.unknown, #"Space expected after closing '"'"#)),
        ("add it's", ACKError(.unknown, "Invalid unquoted character")),
        ("add 'x'", ACKError(.unknown, "Invalid unquoted character")),
        (#"add a"b""#, ACKError(.unknown, "Invalid unquoted character")),
        // The first bad argument wins; later ones are not looked at.
        (#"add 'x' "y"#, ACKError(.unknown, "Invalid unquoted character")),
        // The command word: errors close the connection.
        ("pl@y", ACKError(.unknown, "Invalid word character", closesConnection: true)),
        ("play-1", ACKError(.unknown, "Invalid word character", closesConnection: true)),
        (#"play"1""#, ACKError(.unknown, "Invalid word character", closesConnection: true)),
        ("plé", ACKError(.unknown, "Invalid word character", closesConnection: true)),
    ]

    @Test(arguments: errorLines)
    func error(_ line: String, _ expected: ACKError) {
        #expect(tokenize(line) == .error(expected))
    }

    @Test func strippingTrailingBlanksThenCuttingAtNUL() {
        func meaningful(_ bytes: [UInt8]) -> [UInt8] {
            bytes.withUnsafeBufferPointer { Array(bytes[0..<Tokenizer.meaningfulLength(of: $0)]) }
        }
        #expect(meaningful(Array("play 1 \t\r".utf8)) == Array("play 1".utf8))
        #expect(meaningful(Array(" \r".utf8)).isEmpty)
        #expect(meaningful([]).isEmpty)
        #expect(meaningful([0x70, 0x00, 0x20]) == [0x70])
        // The NUL cuts after the blanks went: what stood before it stays, blanks included.
        #expect(meaningful(Array("ping \0pong".utf8)) == Array("ping ".utf8))
        #expect(meaningful(Array("\0ping".utf8)).isEmpty)
    }

    /// MPD 0.24 reads an argument, then fails if `COMMAND_ARGV_MAX` (2 + 2 × 35 = 72) are already stored:
    /// 72 arguments pass and the 73rd is `Too many arguments` (0.23 checked before reading, so there 71 passed).
    @Test func argumentLimit() {
        #expect(Tokenizer.maximumArguments == 72)
        if case .request(let request) = tokenize(arguments(71)) {
            #expect(request.count == 71)
        } else {
            Issue.record("71 arguments must pass")
        }
        #expect(tokenize(arguments(73)) == .error(ACKError(.arg, "Too many arguments")))
        #expect(tokenize(arguments(200)) == .error(ACKError(.arg, "Too many arguments")))
        if case .request(let request) = tokenize(arguments(72)) {
            #expect(request.count == 72)
        } else {
            Issue.record("72 arguments must pass in MPD 0.24")
        }
        // MPD 0.24 tokenizes the 73rd argument before counting, so its own error wins.
        #expect(tokenize(arguments(72) + " 'x") == .error(ACKError(.unknown, "Invalid unquoted character")))
    }

    @Test func typedArguments() throws {
        let request = Request(command: "x", arguments: ["1", "5:7", "abc"])
        #expect(try request.argument(Bool.self, 0))
        #expect(try request.argument(RangeArgument.self, 1) == RangeArgument(start: 5, end: 7))
        #expect(try request.optionalArgument(Int32.self, 3) == nil)
        #expect(throws: ACKError(.arg, "Integer expected: abc")) { try request.argument(Int32.self, 2) }
    }
}

/// `src/protocol/ArgParser.cxx`: `strtol`-family parsing that must consume the whole argument.
struct ArgumentTests {
    static let booleans: [(String, Bool?)] = [
        ("0", false), ("1", true), ("01", true), ("+1", true), ("-0", false), (" 1", true),
        ("2", nil), ("-1", nil), ("", nil), ("1 ", nil), ("true", nil), ("0x1", nil),
    ]

    @Test(arguments: booleans)
    func boolean(_ text: String, _ expected: Bool?) throws {
        if let expected {
            #expect(try Bool(mpdArgument: text) == expected)
        } else {
            #expect(throws: ACKError(.arg, "Boolean (0/1) expected: \(text)")) { try Bool(mpdArgument: text) }
        }
    }

    @Test func integers() throws {
        #expect(try Int32(mpdArgument: "-5") == -5)
        #expect(try Int32(mpdArgument: "2147483647") == .max)
        #expect(throws: ACKError(.arg, "Integer expected: x")) { try Int32(mpdArgument: "x") }
        #expect(throws: ACKError(.arg, "Integer expected: ")) { try Int32(mpdArgument: "") }
        #expect(throws: ACKError(.arg, "Integer expected: 1.5")) { try Int32(mpdArgument: "1.5") }
        #expect(throws: ACKError(.arg, "Number too large: 2147483648")) { try Int32(mpdArgument: "2147483648") }
        #expect(throws: ACKError(.arg, "Number too large: -99999999999")) { try Int32(mpdArgument: "-99999999999") }
        #expect(throws: ACKError(.arg, "Number too large: 101")) { try MPDInteger.parse("101", in: 0...100) }
        // `strtoul` wraps negative input around.
        #expect(try UInt32(mpdArgument: "-1") == .max)
        #expect(try MPDInteger.parseUnsigned("4294967295") == 4_294_967_295)
        #expect(try MPDInteger.parseUnsigned("+7", max: 7) == 7)
        #expect(throws: ACKError(.arg, "Number too large: -1")) { try MPDInteger.parseUnsigned("-1") }
        #expect(throws: ACKError(.arg, "Number too large: 8")) { try MPDInteger.parseUnsigned("8", max: 7) }
        #expect(throws: ACKError(.arg, "Integer expected: 7x")) { try MPDInteger.parseUnsigned("7x") }
    }

    @Test func floats() throws {
        #expect(try Float(mpdArgument: "1.5") == 1.5)
        #expect(try Float(mpdArgument: "-2e3") == -2000)
        #expect(try Float(mpdArgument: "nan").isNaN)
        #expect(try Float(mpdArgument: "inf") == .infinity)
        #expect(throws: ACKError(.arg, "Float expected: x")) { try Float(mpdArgument: "x") }
        #expect(throws: ACKError(.arg, "Float expected: 1.5s")) { try Float(mpdArgument: "1.5s") }
        #expect(try SongTimeArgument(mpdArgument: "2.5").seconds == 2.5)
        #expect(throws: ACKError(.arg, "Negative value not allowed: -1")) { try SongTimeArgument(mpdArgument: "-1") }
    }

    /// Times are MPD's 32-bit milliseconds, converted as the x86-64 MPD converts them (observed on MPD 0.23.12:
    /// `seek 0 inf` restarts the song, `seek 0 5000000` lands past its end, `seekcur 3e14` seeks to 0).
    @Test func absurdTimesAreMPDsMilliseconds() throws {
        #expect(try SongTimeArgument(mpdArgument: "1.0005").seconds == 1.0)
        #expect(try SongTimeArgument(mpdArgument: "0.3").seconds == 0.3)
        for text in ["inf", "nan", "1e30", "-nan", "1e19"] {
            #expect(try SongTimeArgument(mpdArgument: text).seconds == 0, "\(text)")
        }
        #expect(try SongTimeArgument(mpdArgument: "5000000").seconds == 705_032.704)
        #expect(try SignedSongTimeArgument(mpdArgument: "-2.5").seconds == -2.5)
        #expect(try SignedSongTimeArgument(mpdArgument: "+7").seconds == 7)
        for text in ["3e14", "inf", "-inf", "nan", "2147484"] {
            #expect(try SignedSongTimeArgument(mpdArgument: text).seconds == -2_147_483.648, "\(text)")
        }
        #expect(try SignedSongTimeArgument(mpdArgument: "2000000").seconds == 2_000_000)
    }

    static let validRanges: [(String, RangeArgument)] = [
        ("1", RangeArgument(start: 1, end: 2)),
        ("0", RangeArgument(start: 0, end: 1)),
        ("1:5", RangeArgument(start: 1, end: 5)),
        ("3:3", RangeArgument(start: 3, end: 3)),
        ("1:", RangeArgument(start: 1, end: nil)),
        ("-1", .all),
        ("+2:+4", RangeArgument(start: 2, end: 4)),
        ("2147483647", RangeArgument(start: 2_147_483_647, end: 2_147_483_648)),
    ]

    @Test(arguments: validRanges)
    func range(_ text: String, _ expected: RangeArgument) throws {
        #expect(try RangeArgument(mpdArgument: text) == expected)
    }

    static let rangeErrors: [(String, String)] = [
        ("5:1", "Malformed range: 5:1"),
        ("-2", "Number is negative: -2"),
        ("-1:5", "Number is negative: -1:5"),
        ("1:-2", "Number is negative: 1:-2"),
        ("x", "Integer or range expected: x"),
        ("", "Integer or range expected: "),
        (":5", "Integer or range expected: :5"),
        ("1:x", "Integer or range expected: 1:x"),
        ("1:2:3", "Integer or range expected: 1:2:3"),
        ("1-2", "Integer or range expected: 1-2"),
        ("2147483648", "Number too large: 2147483648"),
        ("0:2147483648", "Number too large: 0:2147483648"),
    ]

    @Test(arguments: rangeErrors)
    func rangeError(_ text: String, _ message: String) {
        #expect(throws: ACKError(.arg, message)) { try RangeArgument(mpdArgument: text) }
    }

    @Test func positions() throws {
        #expect(try PositionArgument(mpdArgument: "3").resolve(queueLength: 5, current: nil) == 3)
        #expect(try PositionArgument(mpdArgument: "5").resolve(queueLength: 5, current: nil) == 5)
        #expect(try PositionArgument(mpdArgument: "+0").resolve(queueLength: 5, current: 1) == 2)
        #expect(try PositionArgument(mpdArgument: "-0").resolve(queueLength: 5, current: 1) == 1)
        #expect(try PositionArgument(mpdArgument: "-1").resolve(queueLength: 5, current: 1) == 0)
        #expect(throws: ACKError(.arg, "Number too large: 6")) {
            try PositionArgument(mpdArgument: "6").resolve(queueLength: 5, current: nil)
        }
        #expect(throws: ACKError(.playerSync, "No current song")) {
            try PositionArgument(mpdArgument: "+1").resolve(queueLength: 5, current: nil)
        }
        #expect(throws: ACKError(.arg, "Number too large: 2")) {
            try PositionArgument(mpdArgument: "-2").resolve(queueLength: 5, current: 1)
        }
    }
}

@Suite struct ArgumentEdgeTests {
    @Test func tagNamesFoldASCIIOnly() {
        #expect(TagName(parsing: "tRaCk") == .track)
        #expect(TagName(parsing: "TRAC\u{212A}") == nil)
    }

    @Test func argumentErrorsAreCutAt255Bytes() {
        let long = String(repeating: "x", count: 300)
        #expect(throws: ACKError(.arg, "Integer expected: " + String(repeating: "x", count: 255 - 18))) {
            _ = try MPDInteger.parseUnsigned(long)
        }
    }
}
