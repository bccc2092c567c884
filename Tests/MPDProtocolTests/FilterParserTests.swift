import Testing
@testable import MPDProtocol

// Shorthands for expected trees.
private func tag(
    _ name: TagName, _ value: String, _ kind: StringMatch.Kind = .equals, negated: Bool = false, fold: Bool = false
) -> FilterExpression {
    .tag(.tag(name), StringMatch(value, kind, negated: negated, foldCase: fold))
}

private func parse(_ arguments: [String], foldCase: Bool = false) throws(ACKError) -> FilterExpression {
    try FilterParser.parse(arguments: arguments, foldCase: foldCase)
}

private func parseError(_ arguments: [String], foldCase: Bool = false) -> ACKError? {
    do {
        _ = try parse(arguments, foldCase: foldCase)
        return nil
    } catch {
        return error
    }
}

/// Expressions and legacy pairs that MPD 0.24 accepts, and the tree each becomes.
struct FilterParserValidTests {
    static let expressionCases: [(String, FilterExpression)] = [
        // Plain comparisons; both quote characters.
        (#"(Artist == 'x')"#, tag(.artist, "x")),
        (#"(Artist == "x")"#, tag(.artist, "x")),
        (#"(Artist != 'x')"#, tag(.artist, "x", negated: true)),
        (#"(Album contains 'y')"#, tag(.album, "y", .contains)),
        (#"(Album !contains 'y')"#, tag(.album, "y", .contains, negated: true)),
        (#"(Title starts_with 'a')"#, tag(.title, "a", .startsWith)),
        (#"(Title !starts_with 'a')"#, tag(.title, "a", .startsWith, negated: true)),
        (#"(Title =~ '^a.*(b|c)$')"#, tag(.title, "^a.*(b|c)$", .regex)),
        (#"(Title !~ 'b')"#, tag(.title, "b", .regex, negated: true)),
        // Tag names and word operators are case-insensitive; symbols need no blank around them.
        (#"(ARTIST == 'x')"#, tag(.artist, "x")),
        (#"(musicbrainz_trackid == 'id')"#, tag(.musicBrainzTrackID, "id")),
        (#"(Artist CONTAINS 'x')"#, tag(.artist, "x", .contains)),
        (#"(Artist Starts_With 'x')"#, tag(.artist, "x", .startsWith)),
        (#"(Artist=='x')"#, tag(.artist, "x")),
        (#"(Artist!='x')"#, tag(.artist, "x", negated: true)),
        (#"(Artist=~'x')"#, tag(.artist, "x", .regex)),
        // A blank (not a tab) must follow a word operator, but any blanks may follow that one.
        ("(Artist contains \t 'x')", tag(.artist, "x", .contains)),
        ("(\tArtist\t==\t'x'\t)\t", tag(.artist, "x")),
        (#"( Artist   ==   'x'   )"#, tag(.artist, "x")),
        // Special types.
        (#"(any contains 'x')"#, .tag(.any, StringMatch("x", .contains))),
        (#"(ANY == 'x')"#, .tag(.any, StringMatch("x"))),
        (#"(file == 'a/b.mp3')"#, .tag(.file, StringMatch("a/b.mp3"))),
        (#"(filename != 'x')"#, .tag(.file, StringMatch("x", negated: true))),
        (#"(FILE starts_with 'http')"#, .tag(.file, StringMatch("http", .startsWith))),
        (#"(base 'dir/sub')"#, .base("dir/sub")),
        // An expression's base is not checked (only the legacy pair's is).
        (#"(base '../x')"#, .base("../x")),
        (#"(modified-since '2024-01-02T03:04:05Z')"#, .modifiedSince(1_704_164_645)),
        (#"(modified-since '1700000000')"#, .modifiedSince(1_700_000_000)),
        (#"(added-since '2024-01-02')"#, .addedSince(1_704_153_600)),
        (#"(AudioFormat == '44100:16:2')"#,
         .audioFormat(AudioFormatMatch(sampleRate: 44100, sampleFormat: .s16, channels: 2))),
        (#"(audioformat =~ '*:24:*')"#, .audioFormat(AudioFormatMatch(sampleRate: 0, sampleFormat: .s24, channels: 0))),
        (#"(AudioFormat =~ '96000:*:2')"#,
         .audioFormat(AudioFormatMatch(sampleRate: 96000, sampleFormat: nil, channels: 2))),
        (#"(AudioFormat == '48000:f:8')"#,
         .audioFormat(AudioFormatMatch(sampleRate: 48000, sampleFormat: .float, channels: 8))),
        (#"(AudioFormat == '48000:24_3:1')"#,
         .audioFormat(AudioFormatMatch(sampleRate: 48000, sampleFormat: .s24, channels: 1))),
        (#"(AudioFormat == '2822400:dsd:2')"#,
         .audioFormat(AudioFormatMatch(sampleRate: 2_822_400, sampleFormat: .dsd, channels: 2))),
        (#"(AudioFormat == 'dsd64:2')"#,
         .audioFormat(AudioFormatMatch(sampleRate: 352_800, sampleFormat: .dsd, channels: 2))),
        (#"(AudioFormat =~ 'dsd64:*')"#,
         .audioFormat(AudioFormatMatch(sampleRate: 352_800, sampleFormat: .dsd, channels: 0))),
        (#"(AudioFormat == '044100:8:02')"#,
         .audioFormat(AudioFormatMatch(sampleRate: 44100, sampleFormat: .s8, channels: 2))),
        (#"(prio >= 42)"#, .priority(atLeast: 42)),
        (#"(PRIO >=0)"#, .priority(atLeast: 0)),
        (#"(prio>=+255)"#, .priority(atLeast: 255)),
        // Negation, groups and AND.
        (#"(!(Artist == 'x'))"#, .not(tag(.artist, "x"))),
        (#"( ! ( Artist == 'x' ) )"#, .not(tag(.artist, "x"))),
        (#"(!(!(Artist == 'x')))"#, .not(.not(tag(.artist, "x")))),
        (#"((Artist == 'x'))"#, tag(.artist, "x")),
        (#"(((Artist == 'x')))"#, tag(.artist, "x")),
        (#"((Artist == 'x') AND (Album == 'y'))"#, .and([tag(.artist, "x"), tag(.album, "y")])),
        (#"((Artist == 'x') AND (Album == 'y') AND (!(Title == 'z')))"#,
         .and([tag(.artist, "x"), tag(.album, "y"), .not(tag(.title, "z"))])),
        (#"(((Artist == 'x') AND (Album == 'y')) AND (Date == '1970'))"#,
         .and([.and([tag(.artist, "x"), tag(.album, "y")]), tag(.date, "1970")])),
        (#"((Artist == 'x')AND(Album == 'y'))"#, .and([tag(.artist, "x"), tag(.album, "y")])),
        // Release builds of MPD skip the byte after AND without checking that it is '('.
        (#"((Artist == 'x') AND xAlbum == 'y'))"#, .and([tag(.artist, "x"), tag(.album, "y")])),
        // Values: escapes, the other quote, parentheses, empty, UTF-8.
        (#"(Artist == 'foo\'bar')"#, tag(.artist, "foo'bar")),
        (#"(Artist == "foo\"bar")"#, tag(.artist, #"foo"bar"#)),
        (#"(Artist == 'it"s')"#, tag(.artist, #"it"s"#)),
        (#"(Artist == "it's")"#, tag(.artist, "it's")),
        (#"(Artist == 'a\\b')"#, tag(.artist, #"a\b"#)),
        (#"(Artist == 'a\nb')"#, tag(.artist, "anb")),
        (#"(Artist == 'a)b(c')"#, tag(.artist, "a)b(c")),
        (#"(Artist == '')"#, tag(.artist, "")),
        (#"(Artist != '')"#, tag(.artist, "", negated: true)),
        (#"(Artist == 'Sigur Rós 坂本龍一')"#, tag(.artist, "Sigur Rós 坂本龍一")),
    ]

    @Test(arguments: expressionCases)
    func expression(_ text: String, _ expected: FilterExpression) throws {
        #expect(try parse([text]) == expected)
    }

    /// The explicit-case operators of 0.24 ignore the command's fold-case flag; the plain ones follow it.
    static let operatorCases: [(String, StringMatch.Kind, Bool, Bool?)] = [
        // (operator, kind, negated, explicit fold case or nil for the command's)
        ("==", .equals, false, nil), ("!=", .equals, true, nil),
        ("contains", .contains, false, nil), ("!contains", .contains, true, nil),
        ("starts_with", .startsWith, false, nil), ("!starts_with", .startsWith, true, nil),
        ("=~", .regex, false, nil), ("!~", .regex, true, nil),
        ("eq_cs", .equals, false, false), ("!eq_cs", .equals, true, false),
        ("eq_ci", .equals, false, true), ("!eq_ci", .equals, true, true),
        ("contains_cs", .contains, false, false), ("!contains_cs", .contains, true, false),
        ("contains_ci", .contains, false, true), ("!contains_ci", .contains, true, true),
        ("starts_with_cs", .startsWith, false, false), ("!starts_with_cs", .startsWith, true, false),
        ("starts_with_ci", .startsWith, false, true), ("!starts_with_ci", .startsWith, true, true),
        ("EQ_CI", .equals, false, true), ("!Contains_CS", .contains, true, false),
    ]

    @Test(arguments: operatorCases, [false, true])
    func stringOperator(_ op: (String, StringMatch.Kind, Bool, Bool?), commandFoldsCase: Bool) throws {
        let (text, kind, negated, explicit) = op
        let expected = StringMatch("v", kind, negated: negated, foldCase: explicit ?? commandFoldsCase)
        #expect(try parse(["(Genre \(text) 'v')"], foldCase: commandFoldsCase) == .tag(.tag(.genre), expected))
    }

    /// Pre-0.21 `TYPE VALUE` pairs: exact with `find`, substring and case-folding with `search` (MPD issue #410).
    static let legacyPairCases: [([String], Bool, FilterExpression)] = [
        (["artist", "x"], false, tag(.artist, "x")),
        (["artist", "x"], true, tag(.artist, "x", .contains, fold: true)),
        (["ALBUMARTIST", "x"], false, tag(.albumArtist, "x")),
        (["any", "x"], false, .tag(.any, StringMatch("x"))),
        (["Any", "x"], true, .tag(.any, StringMatch("x", .contains, foldCase: true))),
        (["file", "a/b"], false, .tag(.file, StringMatch("a/b"))),
        (["filename", "a/b"], true, .tag(.file, StringMatch("a/b", .contains, foldCase: true))),
        (["base", "dir/sub"], false, .base("dir/sub")),
        (["base", "..."], false, .base("...")),
        (["base", "a/.hidden/..b"], false, .base("a/.hidden/..b")),
        (["modified-since", "2024-01"], false, .modifiedSince(1_704_067_200)),
        (["added-since", "0"], false, .addedSince(0)),
        // MPD builds a tag filter on an out-of-range tag type for these: no song matches.
        (["AudioFormat", "44100:16:2"], false, .nothing),
        (["prio", "1"], true, .nothing),
        // A value that looks like an expression is just a value in a pair.
        (["artist", "(x)"], false, tag(.artist, "(x)")),
        (["artist", ""], false, tag(.artist, "")),
        // Several arguments are ANDed, and the styles mix.
        (["artist", "x", "album", "y"], false, .and([tag(.artist, "x"), tag(.album, "y")])),
        (["(Artist == 'x')", "album", "y"], false, .and([tag(.artist, "x"), tag(.album, "y")])),
        (["album", "y", "(Artist == 'x')"], true,
         .and([tag(.album, "y", .contains, fold: true), tag(.artist, "x", fold: true)])),
        (["(Artist == 'x')", "(Album == 'y')"], false, .and([tag(.artist, "x"), tag(.album, "y")])),
    ]

    @Test(arguments: legacyPairCases)
    func legacyPair(_ arguments: [String], _ foldCase: Bool, _ expected: FilterExpression) throws {
        #expect(try parse(arguments, foldCase: foldCase) == expected)
    }

    /// doc/protocol.rst "Escaping String Values": the artist `foo'bar"` travels through two levels of escaping.
    @Test func twoLevelEscaping() throws {
        let line = #"find "(Artist == \"foo\\'bar\\\"\")""#
        guard case .request(let request) = Tokenizer.tokenize(Array(line.utf8)) else {
            Issue.record("tokenizer rejected \(line)")
            return
        }
        #expect(request.arguments == [#"(Artist == "foo\'bar\"")"#])
        #expect(try parse(request.arguments) == tag(.artist, #"foo'bar""#))
    }

    @Test func longestValue() throws {
        let value = String(repeating: "a", count: FilterParser.maximumValueLength)
        #expect(try parse(["(Artist == '\(value)')"]) == tag(.artist, value))
        // Escapes do not count: the limit is on the unescaped value.
        let escaped = String(repeating: #"\a"#, count: FilterParser.maximumValueLength)
        #expect(try parse(["(Artist == '\(escaped)')"]) == tag(.artist, value))
    }

    /// MPD recurses once per `(`; the parser here must not need a stack frame per level.
    @Test func deepNesting() throws {
        let depth = 2000
        let nots = String(repeating: "(!", count: depth) + "(Artist == 'x')" + String(repeating: ")", count: depth)
        var expected = tag(.artist, "x")
        for _ in 0..<depth { expected = .not(expected) }
        #expect(try parse([nots]) == expected)
        let groups = String(repeating: "(", count: 4000) + "Artist == 'x'" + String(repeating: ")", count: 4000)
        #expect(try parse([groups]) == tag(.artist, "x"))
        #expect(parseError([String(repeating: "(", count: 8190)]) == ACKError(.arg, "Word expected"))
    }

    /// MPD's `OptimizeSongFilter`: a `(!` chain folds into the comparison's own negation, nested `AND`s are spliced.
    @Test func optimized() throws {
        let chain = { (depth: Int) in
            try parse([String(repeating: "(!", count: depth) + "(Artist == 'x')" + String(repeating: ")", count: depth)])
        }
        #expect(try chain(2000).optimized() == tag(.artist, "x"))
        #expect(try chain(1999).optimized() == tag(.artist, "x", negated: true))
        #expect(try parse(["(!(!(base 'a')))"]).optimized() == .base("a"))
        #expect(try parse(["(!(!(!(base 'a'))))"]).optimized() == .not(.base("a")))
        let nested = try parse(["((Artist == 'a') AND ((Album == 'b') AND ((Title == 'c'))))", "genre", "g"])
        #expect(nested.optimized() == .and([tag(.artist, "a"), tag(.album, "b"), tag(.title, "c"), tag(.genre, "g")]))
        // NOT over AND stays: only De Morgan could push it further, and MPD does not.
        let kept = try parse(["(!((Artist == 'a') AND (!(Album != 'b'))))"])
        #expect(kept.optimized() == .not(.and([tag(.artist, "a"), tag(.album, "b")])))
        #expect(FilterExpression.and([]).optimized() == .and([]))
    }

    /// MPD sees C strings: a NUL byte ends the argument.
    @Test func nulEndsArgument() throws {
        #expect(try parse(["(Artist == 'x')\u{0}garbage"]) == tag(.artist, "x"))
        #expect(try parse(["artist\u{0}junk", "x\u{0}y"]) == tag(.artist, "x"))
        #expect(parseError(["(Artist == 'x\u{0}')"]) == ACKError(.arg, "Closing quote not found"))
    }
}

/// Every error text of MPD 0.24's filter parser, as the client sees it (after `GetFullMessage`).
struct FilterParserErrorTests {
    static let errorCases: [([String], String)] = [
        // Argument list.
        ([], "Incorrect number of filter arguments"),
        (["artist"], "Incorrect number of filter arguments"),
        (["artist", "x", "album"], "Incorrect number of filter arguments"),
        (["(Artist == 'x')", "artist"], "Incorrect number of filter arguments"),
        (["(Artist == 'x') y"], "Unparsed garbage after expression"),
        (["(Artist == 'x'))"], "Unparsed garbage after expression"),
        // Legacy pairs.
        (["foo", "x"], "Unknown filter type"),
        (["", "x"], "Unknown filter type"),
        (["Base", "x"], "Unknown filter type"),
        (["Modified-Since", "1"], "Unknown filter type"),
        (["base", "../x"], "Bad URI"),
        (["base", ""], "Bad URI"),
        (["base", "/abs"], "Bad URI"),
        (["base", "a/"], "Bad URI"),
        (["base", "a//b"], "Bad URI"),
        (["base", "a/./b"], "Bad URI"),
        (["base", "a/.."], "Bad URI"),
        (["modified-since", "x"], "Failed to parse date"),
        (["added-since", "2024-01-02T"], "Failed to parse time of day"),
        // Structure.
        (["("], "Word expected"),
        (["(("], "Word expected"),
        (["()"], "Word expected"),
        (["(123 == 'x')"], "Word expected"),
        (["((Artist == 'x')"], "Word expected"),
        (["((Artist == 'x') 5"], "Word expected"),
        (["((Artist == 'x') AND"], "Word expected"),
        (["((Artist == 'x') AND "], "Word expected"),
        (["((Artist == 'x') AND ("], "Word expected"),
        (["((Artist == 'x') OR (Album == 'y'))"], "'AND' expected"),
        (["((Artist == 'x') and (Album == 'y'))"], "'AND' expected"),
        (["((Artist == 'x') AND (Album == 'y') And (Date == 'z'))"], "'AND' expected"),
        (["(!"], "'(' expected"),
        (["(!Artist == 'x')"], "'(' expected"),
        (["(!(Artist == 'x')"], "')' expected"),
        (["(!(Artist == 'x') x)"], "')' expected"),
        // Types.
        (["(foo == 'x')"], "Unknown filter type: foo"),
        (["(Base 'x')"], "Unknown filter type: Base"),
        (["(Modified-since '1')"], "Unknown filter type: Modified-since"),
        (["(ADDED-SINCE '1')"], "Unknown filter type: ADDED-SINCE"),
        (["(Artist_X == 'x')"], "Unknown filter type: Artist_X"),
        // Operators: MPD quotes the rest of the expression, blanks squeezed.
        (["(Artist"], "Unknown filter operator:"),
        (["(Artist)"], "Unknown filter operator: )"),
        (["(Artist2 == 'x')"], "Unknown filter operator: 2 == 'x')"),
        (["(Artist ~= 'x')"], "Unknown filter operator: ~= 'x')"),
        (["(Artist = 'x')"], "Unknown filter operator: = 'x')"),
        (["(Artist contains'x')"], "Unknown filter operator: contains'x')"),
        (["(Artist contains\t'x')"], "Unknown filter operator: contains 'x')"),
        (["(Artist   <   'x'  \t )"], "Unknown filter operator: < 'x' )"),
        (["(Artist eq_cs'x')"], "Unknown filter operator: eq_cs'x')"),
        // Values.
        (["(Artist == "], "Quoted string expected"),
        (["(Artist == x)"], "Quoted string expected"),
        (["(Artist contains `x`)"], "Quoted string expected"),
        (["(base x)"], "Quoted string expected"),
        (["(modified-since)"], "Quoted string expected"),
        (["(Artist == 'x"], "Closing quote not found"),
        (["(Artist == 'x\\"], "Closing quote not found"),
        (["(Artist == 'x\\'"], "Closing quote not found"),
        (["(Artist == \"x')"], "Closing quote not found"),
        (["(Artist == 'x'"], "')' expected"),
        (["(Artist == 'x' 'y')"], "')' expected"),
        (["(base 'x' 'y')"], "')' expected"),
        (["(Artist == '" + String(repeating: "a", count: 4096) + "')"], "Quoted value is too long"),
        // Time stamps: `)` is checked before the time stamp is parsed.
        (["(modified-since 'x' y)"], "')' expected"),
        (["(modified-since 'x')"], "Failed to parse date"),
        (["(modified-since '')"], "Failed to parse date"),
        (["(modified-since '2024-01-01T25:00:00Z')"], "Failed to parse time of day"),
        (["(modified-since '2024-01-01T00:00:00+14')"], "Time offset hours out of range"),
        (["(added-since '2024-01-01X')"], "Garbage at end of time stamp"),
        // Audio formats.
        (["(AudioFormat != '44100:16:2')"], "'==' or '=~' expected"),
        (["(AudioFormat contains '44100:16:2')"], "'==' or '=~' expected"),
        (["(AudioFormat == 44100:16:2)"], "Quoted string expected"),
        (["(AudioFormat == '44100:16:2' x)"], "')' expected"),
        (["(AudioFormat == '')"], "Failed to parse the sample rate"),
        (["(AudioFormat == '*:16:2')"], "Failed to parse the sample rate"),
        (["(AudioFormat == '+44100:16:2')"], "Failed to parse the sample rate"),
        (["(AudioFormat == ' 44100:16:2')"], "Failed to parse the sample rate"),
        (["(AudioFormat == '4294967296:16:2')"], "Failed to parse the sample rate"),
        (["(AudioFormat == '0:16:2')"], "Invalid sample rate: 0"),
        (["(AudioFormat =~ '1073741824:16:2')"], "Invalid sample rate: 1073741824"),
        (["(AudioFormat == '44100')"], "Sample format missing"),
        (["(AudioFormat == '44100:*:2')"], #"Invalid sample format: "*""#),
        (["(AudioFormat == '44100:12:2')"], #"Invalid sample format: "12""#),
        (["(AudioFormat == '44100::2')"], #"Invalid sample format: """#),
        (["(AudioFormat == '44100:\t\\\"é:2')"], #"Invalid sample format: "\t\"é""#),
        (["(AudioFormat == '44100:16')"], "Channel count missing"),
        (["(AudioFormat == '44100:16:x')"], "Failed to parse the channel count"),
        (["(AudioFormat == '44100:16:2:1')"], "Failed to parse the channel count"),
        (["(AudioFormat == '44100:16:256')"], "Failed to parse the channel count"),
        (["(AudioFormat == '44100:16:*')"], "Failed to parse the channel count"),
        (["(AudioFormat == '44100:16:0')"], "Invalid channel count: 0"),
        (["(AudioFormat =~ '44100:16:9')"], "Invalid channel count: 9"),
        (["(AudioFormat == 'dsd64')"], "Channel count missing"),
        (["(AudioFormat == 'dsd:2')"], "Failed to parse the DSD rate"),
        (["(AudioFormat =~ 'dsd*:2')"], "Failed to parse the DSD rate"),
        (["(AudioFormat == 'dsd16:2')"], "Bad DSD rate"),
        (["(AudioFormat == 'dsd8192:2')"], "Bad DSD rate"),
        (["(AudioFormat == 'dsd64:9')"], "Invalid channel count: 9"),
        // Priorities.
        (["(prio > 1)"], "'>=' expected"),
        (["(prio == 1)"], "'>=' expected"),
        (["(prio >= x)"], "Number expected"),
        (["(prio >= )"], "Number expected"),
        (["(prio >= '1')"], "Number expected"),
        (["(prio >= 256)"], "Invalid priority value"),
        (["(prio >= -1)"], "Invalid priority value"),
        (["(prio >= 99999999999999999999999)"], "Invalid priority value"),
        (["(prio >= 1 )"], "')' expected"),
        (["(prio >= 1"], "')' expected"),
        (["(prio >= 1x)"], "')' expected"),
    ]

    @Test(arguments: errorCases)
    func error(_ arguments: [String], _ message: String) {
        #expect(parseError(arguments) == ACKError(.arg, message))
        #expect(parseError(arguments, foldCase: true) == ACKError(.arg, message))
    }

    /// MPD compiles `=~` patterns while parsing, so a bad pattern wins over any later error, and the message goes
    /// through `GetFullMessage` like every other filter error.
    @Test func regexValidation() {
        var seen: [(String, Bool)] = []
        let validator: FilterParser.RegexValidator = { pattern, caseless throws(ACKError) in
            seen.append((pattern, caseless))
            if pattern == "(" { throw ACKError(.unknown, "Error in regex at offset 1:\n  missing closing parenthesis") }
        }
        #expect(throws: ACKError(.arg, "Error in regex at offset 1: missing closing parenthesis")) {
            _ = try FilterParser.parse(arguments: ["(Title =~ '(')", "foo"], foldCase: true, validateRegex: validator)
        }
        #expect(seen.map(\.0) == ["("])
        #expect(seen.map(\.1) == [true])
        #expect(throws: Never.self) {
            _ = try FilterParser.parse(arguments: ["(Title !~ 'ok' )"], foldCase: false, validateRegex: validator)
        }
        #expect(seen.map(\.1) == [true, false])
    }
}

/// `ParseTimeStamp`: MPD's ISO 8601 subset (on glibc's `strptime`) or UNIX seconds.
struct TimestampTests {
    static let validStamps: [(String, Int64)] = [
        ("2024-01-02T03:04:05Z", 1_704_164_645),
        ("2024-01-02T03:04:05", 1_704_164_645),
        ("2024-01-02T03:04", 1_704_164_640),
        ("2024-01-02T03", 1_704_164_400),
        ("2024-01-02T0304", 1_704_164_640),
        ("2024-01-02T030405Z", 1_704_164_645),
        ("20240102T030405Z", 1_704_164_645),
        ("2024-01-02", 1_704_153_600),
        ("2024-01-02Z", 1_704_153_600),
        ("20240102", 1_704_153_600),
        ("2024-01", 1_704_067_200),
        ("2024-1-2", 1_704_153_600),
        (" 2024-01-02", 1_704_153_600),
        ("2024-01-02T 03", 1_704_164_400),
        ("2024-01-02T03:04:05+01:00", 1_704_164_645 - 3600),
        ("2024-01-02T03:04:05+0130", 1_704_164_645 - 5400),
        ("2024-01-02T03:04:05-02", 1_704_164_645 + 7200),
        ("2024-01-02T03:04:05+13", 1_704_164_645 - 13 * 3600),
        ("2024-01-02+01", 1_704_153_600 - 3600),
        // `timegm` rolls a day past the month's end over, and `%S` accepts leap seconds up to 61.
        ("2024-02-30", 1_709_251_200),
        ("1970-01-01T00:00:60Z", 60),
        ("1969-12-31T23:59:59Z", -1),
        ("0000-01-01", -62_167_219_200),
        // UNIX seconds: whatever ISO 8601 rejects and `strtoull` reads whole.
        ("0", 0),
        ("1700000000", 1_700_000_000),
        ("2024", 2024),
        ("12345678", 12_345_678),
        ("+5", 5),
        (" 5", 5),
        ("-1", -1),
        ("18446744073709551615", -1),
        ("99999999999999999999999", -1),
    ]

    /// The parsed seconds, then MPD's nanosecond clock (which wraps outside 1678…2262, see `asSystemClock`).
    @Test(arguments: validStamps)
    func valid(_ text: String, _ expected: Int64) throws {
        #expect(try FilterParser.parseTimestamp(text) == FilterParser.asSystemClock(expected))
    }

    static let invalidStamps: [(String, String)] = [
        ("", "Failed to parse date"),
        ("x", "Failed to parse date"),
        ("2024-13-01", "Failed to parse date"),
        ("2024-00-01", "Failed to parse date"),
        ("2024-01-32", "Failed to parse date"),
        ("2024-01-02T", "Failed to parse time of day"),
        ("2024-01-02Tx", "Failed to parse time of day"),
        ("2024-01-02T24", "Failed to parse time of day"),
        ("2024-01-02T03:", "Failed to parse time of day"),
        // `%M` stops after `6` because 60 > 59, leaving `0` behind.
        ("2024-01-02T03:60", "Garbage at end of time stamp"),
        ("2024-01-02T03:04:", "Failed to parse time of day"),
        ("2024-01-02T03:04:62", "Failed to parse time of day"),
        ("2024-01-02T03:04:05+1", "Failed to parse time zone offset"),
        ("2024-01-02T03:04:05+013", "Failed to parse time zone offset"),
        ("2024-01-02T03:04:05+01:3", "Failed to parse time zone offset"),
        ("2024-01-02T03:04:05+", "Failed to parse time zone offset"),
        ("2024-01-02T03:04:05+14", "Time offset hours out of range"),
        ("2024-01-02T03:04:05+1400", "Time offset hours out of range"),
        ("2024-01-02T03:04:05+-100", "Time offset hours out of range"),
        ("2024-01-02T03:04:05+0060", "Time offset minutes out of range"),
        ("2024-01-02T03:04:05+01:60", "Time offset minutes out of range"),
        ("2024-01-02X", "Garbage at end of time stamp"),
        ("2024-01-02T03:04:05ZZ", "Garbage at end of time stamp"),
        ("2024-01-02T03:04:05.123Z", "Garbage at end of time stamp"),
        ("2024-01-02 03:04:05", "Garbage at end of time stamp"),
        ("1.5", "Failed to parse date"),
    ]

    @Test(arguments: invalidStamps)
    func invalid(_ text: String, _ message: String) {
        #expect(throws: ACKError(.arg, message)) { try FilterParser.parseTimestamp(text) }
    }
}

/// The options around a filter, split from the end in MPD's order.
struct FilterQueryTests {
    private let artist = tag(.artist, "x")

    @Test func sortAndWindow() throws {
        let query = try FilterParser.parseQuery(
            arguments: ["(Artist == 'x')", "sort", "-Title", "window", "0:5"], command: .find)
        #expect(query == FilterQuery(expression: artist, sort: SortSpec(.tag(.title), descending: true),
                                     window: RangeArgument(start: 0, end: 5)))
        #expect(try FilterParser.parseQuery(arguments: ["artist", "x", "window", "3"], command: .search)
            == FilterQuery(expression: tag(.artist, "x", .contains, fold: true), window: RangeArgument(start: 3, end: 4)))
        #expect(try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "sort", "last-modified"], command: .find).sort
            == SortSpec(.lastModified))
        #expect(try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "sort", "-ADDED"], command: .find).sort
            == SortSpec(.added, descending: true))
        #expect(try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "sort", "-prio"], command: .playlistfind)
            .sort == SortSpec(.priority, descending: true))
        #expect(try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "sort", "Prio"], command: .playlistsearch)
            .sort == SortSpec(.priority))
        #expect(try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "window", "-1"], command: .find).window
            == .all)
    }

    @Test func positions() throws {
        let query = try FilterParser.parseQuery(
            arguments: ["(Artist == 'x')", "sort", "Title", "window", "0:1", "position", "+0"], command: .findadd)
        #expect(query == FilterQuery(expression: artist, sort: SortSpec(.tag(.title)),
                                     window: RangeArgument(start: 0, end: 1), position: .afterCurrent("0")))
        #expect(try FilterParser.parseQuery(arguments: ["artist", "x", "position", "-2"], command: .searchadd).position
            == .beforeCurrent("2"))
        // `searchaddpl` reads a plain unsigned number, so `+1` is absolute 1.
        #expect(try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "position", "+1"], command: .searchaddpl)
            .position == .absolute("+1"))
        #expect(throws: ACKError(.arg, "Integer expected: x")) {
            try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "position", "x"], command: .searchaddpl)
        }
        #expect(throws: ACKError(.arg, "Number too large: -1")) {
            try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "position", "-1"], command: .searchaddpl)
        }
        // Only the add commands know `position`.
        #expect(throws: ACKError(.arg, "Unknown filter type")) {
            try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "position", "1"], command: .find)
        }
        // MPD resolves the position before it parses anything else.
        let noCurrentSong: (PositionArgument) throws(ACKError) -> Void = { _ throws(ACKError) in
            throw ACKError(.playerSync, "No current song")
        }
        #expect(throws: ACKError(.playerSync, "No current song")) {
            try FilterParser.parseQuery(arguments: ["(bad", "window", "x", "position", "+1"], command: .findadd,
                                        checkPosition: noCurrentSong)
        }
    }

    @Test func storedPlaylistSearchWindow() throws {
        #expect(try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "window", "1:2"], command: .searchplaylist)
            == FilterQuery(expression: tag(.artist, "x", fold: true), window: RangeArgument(start: 1, end: 2)))
        // Only exactly FILTER window RANGE: with a legacy pair, `window` is taken for a filter type.
        #expect(throws: ACKError(.arg, "Unknown filter type")) {
            try FilterParser.parseQuery(arguments: ["artist", "x", "window", "1:2"], command: .searchplaylist)
        }
        #expect(throws: ACKError(.arg, "Unknown filter type")) {
            try FilterParser.parseQuery(arguments: ["(Artist == 'x')", "sort", "Title"], command: .searchplaylist)
        }
    }

    static let errorCases: [([String], FilterCommand, String)] = [
        (["sort", "Title"], .find, "Incorrect number of filter arguments"),
        (["window", "0:1"], .search, "Incorrect number of filter arguments"),
        (["(Artist == 'x')", "sort", "-"], .find, "Unknown sort tag"),
        (["(Artist == 'x')", "sort", "--Title"], .find, "Unknown sort tag"),
        (["(Artist == 'x')", "sort", "Foo"], .find, "Unknown sort tag"),
        (["(Artist == 'x')", "sort", "prio"], .find, "Unknown sort tag"),
        (["(Artist == 'x')", "sort", "prio"], .searchadd, "Unknown sort tag"),
        (["(Artist == 'x')", "sort", ""], .playlistfind, "Unknown sort tag"),
        (["(Artist == 'x')", "window", "5:1"], .find, "Malformed range: 5:1"),
        (["(Artist == 'x')", "window", "x"], .find, "Integer or range expected: x"),
        (["(Artist == 'x')", "window", "-2"], .playlistsearch, "Number is negative: -2"),
        // The window is parsed before the sort key, and both before the filter.
        (["(bad", "sort", "Foo", "window", "x"], .find, "Integer or range expected: x"),
        (["(bad", "sort", "Foo"], .find, "Unknown sort tag"),
        // Order matters, and so does case.
        (["(Artist == 'x')", "window", "1:5", "sort", "Title"], .find, "Unknown filter type"),
        (["(Artist == 'x')", "SORT", "Title"], .find, "Unknown filter type"),
        (["(Artist == 'x')", "sort", "Title", "sort", "Album"], .find, "Unknown filter type"),
    ]

    @Test(arguments: errorCases)
    func error(_ arguments: [String], _ command: FilterCommand, _ message: String) {
        #expect(throws: ACKError(.arg, message)) { try FilterParser.parseQuery(arguments: arguments, command: command) }
    }

    @Test func foldCasePerCommand() {
        #expect(FilterCommand.allCases.filter(\.foldsCase) == [
            .search, .searchadd, .searchaddpl, .playlistsearch, .searchplaylist,
        ])
    }

    @Test func count() throws {
        #expect(try FilterParser.parseCount(arguments: ["group", "artist"], foldCase: false)
            == CountQuery(expression: .and([]), group: .artist))
        #expect(try FilterParser.parseCount(arguments: ["album", "x", "group", "Date"], foldCase: true)
            == CountQuery(expression: tag(.album, "x", .contains, fold: true), group: .date))
        #expect(try FilterParser.parseCount(arguments: ["(Artist == 'x')"], foldCase: false)
            == CountQuery(expression: artist))
        #expect(throws: ACKError(.arg, "Unknown tag type: foo")) {
            try FilterParser.parseCount(arguments: ["(bad", "group", "foo"], foldCase: false)
        }
        // Only one `group`: the first one is left to the filter.
        #expect(throws: ACKError(.arg, "Unknown filter type")) {
            try FilterParser.parseCount(arguments: ["group", "artist", "group", "album"], foldCase: false)
        }
    }

    @Test func list() throws {
        #expect(try FilterParser.parseList(arguments: ["album"]) == ListQuery(tag: .album))
        #expect(try FilterParser.parseList(arguments: ["Album", "x"])
            == ListQuery(tag: .album, expression: tag(.artist, "x")))
        #expect(try FilterParser.parseList(arguments: ["album", ""])
            == ListQuery(tag: .album, expression: tag(.artist, "")))
        #expect(try FilterParser.parseList(arguments: ["album", "(Artist == 'x')", "group", "date", "group", "albumartist"])
            == ListQuery(tag: .album, groups: [.albumArtist, .date], expression: artist))
        #expect(try FilterParser.parseList(arguments: ["title", "group", "album"])
            == ListQuery(tag: .title, groups: [.album]))
        // The filter of `list` is case-sensitive, and legacy pairs are exact.
        #expect(try FilterParser.parseList(arguments: ["genre", "artist", "x", "group", "album"])
            == ListQuery(tag: .genre, groups: [.album], expression: tag(.artist, "x")))
        #expect(try FilterParser.parseList(arguments: ["file"]) == ListQuery(tag: nil))
        #expect(try FilterParser.parseList(arguments: ["FileName", "(Artist == 'x')"])
            == ListQuery(tag: nil, expression: artist))
    }

    static let listErrorCases: [([String], String)] = [
        (["foo"], "Unknown tag type: foo"),
        (["any"], "Unknown tag type: any"),
        (["artist", "x"], #"should be "Album" for 3 arguments"#),
        (["album", "group", "foo"], "Unknown tag type: foo"),
        (["album", "group", "album"], "Conflicting group"),
        (["album", "group", "ALBUM"], "Conflicting group"),
        (["album", "group", "artist", "group", "artist"], "Conflicting group"),
        (["album", "(bad", "group", "artist"], "Unknown filter type: bad"),
        (["album", "artist", "x", "y"], "Incorrect number of filter arguments"),
        // `list file` has no groups.
        (["file", "group", "x"], "Unknown filter type"),
    ]

    @Test(arguments: listErrorCases)
    func listError(_ arguments: [String], _ message: String) {
        #expect(throws: ACKError(.arg, message)) { try FilterParser.parseList(arguments: arguments) }
    }
}

struct AudioFormatMatchTests {
    @Test func maskMatching() throws {
        let mask = try FilterParser.parseAudioFormat("44100:*:2", mask: true)
        #expect(mask.matches(sampleRate: 44100, sampleFormat: .s24, channels: 2))
        #expect(!mask.matches(sampleRate: 48000, sampleFormat: .s24, channels: 2))
        #expect(!mask.matches(sampleRate: 44100, sampleFormat: .s16, channels: 1))
        #expect(!mask.isFullyDefined)
        #expect(try FilterParser.parseAudioFormat("44100:16:2", mask: false).isFullyDefined)
    }

    @Test func fmtDebugQuoting() {
        #expect(MessageText.quoted("a\"b\\c\n\u{7f}\u{1b}\u{85}é\u{200b}\u{10ffff}")
            == #""a\"b\\c\n\x7f\x1b\x85é\u200b\U0010ffff""#)
    }

    @Test func fullMessage() {
        #expect(MessageText.sanitized("  a \t\n b  c \r\n") == "a b c")
        #expect(MessageText.sanitized("x\u{0}y") == "x")
        #expect(MessageText.sanitized("Integer expected: ") == "Integer expected:")
        // An ACK from an exception is tidied (MPD 0.24); one MPD writes directly is not.
        #expect(ACKError(.arg, "Integer expected: ").line() == "ACK [2@0] {} Integer expected:")
        #expect(ACKError(.arg, "Unrecognized idle event: ", verbatim: true).line() == "ACK [2@0] {} Unrecognized idle event: ")
    }

    /// Times beyond 2262 wrap around in MPD's nanosecond clock: `2999-01-01` is in 1830.
    @Test func timesAreMPDsSystemClock() throws {
        #expect(try FilterParser.parseTimestamp("2020-01-02T03:04:05Z") == 1_577_934_245)
        #expect(try FilterParser.parseTimestamp("-1") == -1)
        let wrapped = try FilterParser.parseTimestamp("2999-01-01")
        #expect(wrapped < 0 && wrapped > -5_000_000_000)
        #expect(FilterParser.asSystemClock(32_472_144_000) == wrapped)
    }

    /// `SongFilter::ToExpression` after `Optimize`: what a `filter` sticker is stored under.
    @Test func expressionsAsMPDWritesThem() throws {
        func written(_ text: String) throws -> String {
            try FilterParser.parse(arguments: [text], foldCase: false).optimized().mpdExpression
        }
        #expect(try written("(!(artist != 'It\\'s \"x\"'))") == #"(Artist == "It\'s \"x\"")"#)
        #expect(try written("((Artist == 'a') AND ((Genre contains 'b') AND (Title !starts_with \"c\")))")
                == #"((Artist == "a") AND (Genre contains "b") AND (Title !starts_with "c"))"#)
        #expect(try written("(any eq_ci 'x')") == #"(any == "x")"#)
        #expect(try written("(file =~ '^a')") == #"(file =~ "^a")"#)
        #expect(try written("(base 'A')") == #"(base "A")"#)
        #expect(try written("(modified-since '1577934245')") == #"(modified-since "2020-01-02T03:04:05Z")"#)
        #expect(try written("(AudioFormat =~ '44100:*:2')") == #"(AudioFormat =~ "44100:*:2")"#)
        #expect(try written("(AudioFormat == '44100:16:2')") == #"(AudioFormat == "44100:16:2")"#)
        #expect(try written("(prio >= 3)") == "(prio >= 3)")
        // Where MPD reports the parse error itself, its kind shows in the code.
        #expect(throws: ACKError(.unknown, "Quoted string expected")) {
            try FilterParser.parse(arguments: ["(Artist == x)"], foldCase: false, keepingErrorKinds: true)
        }
        #expect(throws: ACKError(.arg, "Quoted string expected")) {
            try FilterParser.parse(arguments: ["(Artist == x)"], foldCase: false)
        }
    }
}
