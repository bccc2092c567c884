#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MPD 0.24's filter parser (`SongFilter::Parse` in `src/song/Filter.cxx`) and the argument splitting of the
/// commands that take filters (`src/command/DatabaseCommands.cxx`, `QueueCommands.cxx`, `PlaylistCommands.cxx`).
///
/// It mirrors MPD byte for byte, including its quirks, because clients and the differential tests see the exact
/// error texts:
/// * Arguments are C strings to MPD: everything from a NUL byte on is ignored.
/// * Every filter error is `ACK 2` with MPD's message passed through `GetFullMessage`, which trims blanks and
///   squeezes each run of bytes ≤ 0x20 into one space (so `Unknown filter operator: …` quotes the rest of the
///   expression squeezed).
/// * Release builds of MPD compile out the `assert(*s == '(')` at the top of `ParseExpression`, so after `AND`
///   one byte is skipped whatever it is: `((a == 'x') AND xb == 'y'))` is valid (checked against Debian's MPD).
///   Reading past the end of the argument that way finds NUL bytes here, which gives `Word expected` as MPD
///   does in practice.
/// * Regular expressions are not compiled here (this module has no PCRE); pass `validateRegex` to compile them
///   at the moment MPD does, so that `Error in regex at offset N: …` wins over later errors as it does in MPD.
public enum FilterParser {
    /// Compiles a PCRE pattern the way MPD does (`caseless` is the command's fold-case flag) and throws MPD's
    /// message (`Error in regex at offset N: <pcre2 message>`) when it does not compile. The code is ignored: MPD
    /// answers every filter error with `ACK 2`.
    public typealias RegexValidator = (_ pattern: String, _ caseless: Bool) throws(ACKError) -> Void

    /// The longest quoted value MPD accepts (`char buffer[4096]` in `ExpectQuoted`, which needs the last byte).
    public static let maximumValueLength = 4095

    /// `SongFilter::Parse(args, fold_case)`: expression arguments (starting with `(`) and legacy `TYPE VALUE`
    /// pairs, in any mix, ANDed. A single item is returned as is, several as `.and`.
    ///
    /// The filter commands answer every error with `ACK 2`. Where MPD reports the exception itself (a `filter`
    /// sticker), `keepingErrorKinds` gives its codes instead: `ACK 5` for the syntax (`std::runtime_error`), `ACK 2`
    /// for time stamps and audio formats (`std::invalid_argument`), `ACK 52` for a regular expression PCRE rejects
    /// (`std::system_error`).
    public static func parse(
        arguments: [String], foldCase: Bool, validateRegex: RegexValidator? = nil, keepingErrorKinds: Bool = false
    ) throws(ACKError) -> FilterExpression {
        var validator = validateRegex
        if keepingErrorKinds, let validateRegex {
            validator = { pattern, caseless throws(ACKError) in
                do throws(ACKError) { try validateRegex(pattern, caseless) } catch { throw ACKError(.system, error.message) }
            }
        }
        do {
            return try parseUnsanitized(arguments[...], foldCase: foldCase, validateRegex: validator)
        } catch {
            throw ACKError(keepingErrorKinds ? error.code : .arg, MessageText.sanitized(error.message))
        }
    }

    /// Splits the trailing options off the arguments of a filter command the way MPD does, from the end:
    /// `position` (findadd, searchadd, searchaddpl), then `window`, then `sort`; whatever remains is the filter.
    /// The keywords are case-sensitive and only recognised in that order, so `… window 0:5 sort Title` makes
    /// `window` part of the filter (`Unknown filter type`).
    ///
    /// MPD resolves a `position` against the queue before it parses anything else; pass `checkPosition` to do the
    /// same (e.g. `{ _ = try $0.resolve(queueLength:current:) }`) and get MPD's error precedence.
    public static func parseQuery(
        arguments: [String], command: FilterCommand, validateRegex: RegexValidator? = nil,
        checkPosition: ((PositionArgument) throws(ACKError) -> Void)? = nil
    ) throws(ACKError) -> FilterQuery {
        var args = arguments[...]
        var position: PositionArgument?
        switch command {
        case .findadd, .searchadd:
            if let text = takeOption("position", from: &args) {
                let parsed = try PositionArgument(mpdArgument: text)
                try checkPosition?(parsed)
                position = parsed
            }
        case .searchaddpl:
            // `ParseQueuePosition`: a plain unsigned number, so `+1` is just 1 here.
            if let text = takeOption("position", from: &args) {
                _ = try MPDInteger.parseUnsigned(text)
                let parsed = PositionArgument.absolute(text)
                try checkPosition?(parsed)
                position = parsed
            }
        default:
            break
        }

        var window: RangeArgument?
        var sort: SortSpec?
        if command == .searchplaylist {
            // `handle_searchplaylist` only looks for a window after exactly one filter argument.
            if args.count == 3, cString(args[args.startIndex + 1]) == Array("window".utf8) {
                window = try RangeArgument(mpdArgument: args[args.startIndex + 2])
                args.removeLast(2)
            }
        } else {
            if let text = takeOption("window", from: &args) {
                window = try RangeArgument(mpdArgument: text)
            }
            if let text = takeOption("sort", from: &args) {
                sort = try parseSort(text, allowPriority: command == .playlistfind || command == .playlistsearch)
            }
        }

        let expression = try parse(arguments: Array(args), foldCase: command.foldsCase, validateRegex: validateRegex)
        return FilterQuery(expression: expression, sort: sort, window: window, position: position)
    }

    /// `count [FILTER] [group TAG]` / `searchcount …`: one optional `group`, then an optional filter.
    public static func parseCount(
        arguments: [String], foldCase: Bool, validateRegex: RegexValidator? = nil
    ) throws(ACKError) -> CountQuery {
        var args = arguments[...]
        var group: TagName?
        if let text = takeOption("group", from: &args) {
            guard let tag = tagName(cString(text)) else { throw unknownTagType(text) }
            group = tag
        }
        let expression: FilterExpression =
            args.isEmpty ? .and([]) : try parse(arguments: Array(args), foldCase: foldCase, validateRegex: validateRegex)
        return CountQuery(expression: expression, group: group)
    }

    /// `list TYPE [FILTER] [group TAG]…` (all arguments, TYPE included). The filter is always case-sensitive.
    /// `list album ARTIST` (one argument not starting with `(`) is the pre-0.12 form of
    /// `list album "(Artist == 'ARTIST')"`; other types reject it with `should be "Album" for 3 arguments`.
    public static func parseList(
        arguments: [String], validateRegex: RegexValidator? = nil
    ) throws(ACKError) -> ListQuery {
        guard let first = arguments.first else { throw ACKError.tooFewArguments("list") }
        var args = arguments.dropFirst()
        let name = cString(first)
        if equalsIgnoringASCIICase(name, "file") || equalsIgnoringASCIICase(name, "filename") {
            // `handle_list_file`: no `group`, the rest is the filter.
            let expression = args.isEmpty ? nil : try parse(arguments: Array(args), foldCase: false,
                                                              validateRegex: validateRegex)
            return ListQuery(tag: nil, expression: expression)
        }
        guard let tag = tagName(name) else { throw unknownTagType(first) }

        var expression: FilterExpression?
        if args.count == 1, let only = args.first, cString(only).first != UInt8(ascii: "(") {
            guard tag == .album else { throw ACKError(.arg, "should be \"Album\" for 3 arguments") }
            expression = .tag(.tag(.artist), StringMatch(decodeCString(only)))
            args.removeAll()
        }

        var groups: [TagName] = []
        while let text = takeOption("group", from: &args) {
            guard let group = tagName(cString(text)) else { throw unknownTagType(text) }
            guard group != tag, !groups.contains(group) else { throw ACKError(.arg, "Conflicting group") }
            groups.append(group)
        }

        if !args.isEmpty {
            expression = try parse(arguments: Array(args), foldCase: false, validateRegex: validateRegex)
        }
        return ListQuery(tag: tag, groups: groups, expression: expression)
    }

    /// `ParseSortTag`: `[-]` then `Last-Modified`, `Added`, `prio` (queue commands only) or a tag name, all
    /// case-insensitive. Anything else (including a lone `-`) is `Unknown sort tag`.
    public static func parseSort(_ text: String, allowPriority: Bool) throws(ACKError) -> SortSpec {
        var name = cString(text)[...]
        let descending = name.first == UInt8(ascii: "-")
        if descending { name = name.dropFirst() }
        let bytes = Array(name)
        if equalsIgnoringASCIICase(bytes, "Last-Modified") { return SortSpec(.lastModified, descending: descending) }
        if equalsIgnoringASCIICase(bytes, "Added") { return SortSpec(.added, descending: descending) }
        if allowPriority, equalsIgnoringASCIICase(bytes, "prio") { return SortSpec(.priority, descending: descending) }
        guard let tag = tagName(bytes) else { throw ACKError(.arg, "Unknown sort tag") }
        return SortSpec(.tag(tag), descending: descending)
    }

    /// `ParseTimeStamp`: ISO 8601 as MPD's `ParseISO8601` reads it (`2024-01-02T03:04:05Z`, `2024-01-02`,
    /// `2024-01`, `20240102T0304`, offsets `+01`, `+0130`, `-01:30` up to 13 hours), else an unsigned decimal
    /// UNIX time (`strtoull`, so `-1` wraps to -1 as `time_t`). When both fail, the ISO 8601 error is reported.
    public static func parseTimestamp(_ text: String) throws(ACKError) -> Int64 {
        try parseTimestamp(cString(text))
    }

    /// `ParseAudioFormat(value, mask)`: `RATE:FORMAT:CHANNELS` or `dsdN:CHANNELS`; with `mask`, `*` in any field
    /// of the first form (and the channel field of the second) matches anything.
    public static func parseAudioFormat(_ text: String, mask: Bool) throws(ACKError) -> AudioFormatMatch {
        try parseAudioFormat(cString(text)[...], mask: mask)
    }
}

// MARK: - Argument list

extension FilterParser {
    private static func parseUnsanitized(
        _ arguments: ArraySlice<String>, foldCase: Bool, validateRegex: RegexValidator?
    ) throws(ACKError) -> FilterExpression {
        guard !arguments.isEmpty else { throw ACKError(.unknown, "Incorrect number of filter arguments") }
        var items: [FilterExpression] = []
        var index = arguments.startIndex
        repeat {
            let bytes = cString(arguments[index])
            if bytes.first == UInt8(ascii: "(") {
                index += 1
                var parser = ExpressionParser(bytes: bytes, foldCase: foldCase, validateRegex: validateRegex)
                let item = try parser.parseExpression()
                guard parser.current == 0 else { throw ACKError(.unknown, "Unparsed garbage after expression") }
                items.append(item)
                continue
            }
            guard arguments.endIndex - index >= 2 else {
                throw ACKError(.unknown, "Incorrect number of filter arguments")
            }
            items.append(try parseLegacyPair(type: bytes, value: cString(arguments[index + 1]), foldCase: foldCase))
            index += 2
        } while index < arguments.endIndex
        return items.count == 1 ? items[0] : .and(items)
    }

    /// `SongFilter::Parse(tag, value, fold_case)`: the pre-0.21 `TYPE VALUE` form.
    private static func parseLegacyPair(type: [UInt8], value: [UInt8], foldCase: Bool) throws(ACKError)
        -> FilterExpression
    {
        let text = String(decoding: value, as: UTF8.self)
        // MPD ≤ 0.20 compatibility: with fold_case, a legacy pair is a substring match.
        let match = StringMatch(text, foldCase ? .contains : .equals, negated: false, foldCase: foldCase)
        switch FilterType(type) {
        case nil:
            throw ACKError(.unknown, "Unknown filter type")
        case .base:
            guard isSafeLocalURI(value) else { throw ACKError(.unknown, "Bad URI") }
            return .base(text)
        case .modifiedSince:
            return .modifiedSince(try parseTimestamp(value))
        case .addedSince:
            return .addedSince(try parseTimestamp(value))
        case .file:
            return .tag(.file, match)
        case .any:
            return .tag(.any, match)
        case .tag(let tag):
            return .tag(.tag(tag), match)
        case .audioFormat, .priority:
            return .nothing
        }
    }

    /// Removes `KEYWORD VALUE` from the end when the keyword matches exactly (`StringIsEqual`).
    private static func takeOption(_ keyword: String, from args: inout ArraySlice<String>) -> String? {
        guard args.count >= 2, cString(args[args.endIndex - 2]) == Array(keyword.utf8) else { return nil }
        let value = args[args.endIndex - 1]
        args.removeLast(2)
        return value
    }

    private static func unknownTagType(_ text: String) -> ACKError {
        ACKError(.arg, "Unknown tag type: \(decodeCString(text))")
    }
}

// MARK: - Expressions

/// The filter types of `locate_parse_type`.
private enum FilterType: Equatable {
    case file, any, base, modifiedSince, addedSince, audioFormat, priority
    case tag(TagName)

    init?(_ name: [UInt8]) {
        if equalsIgnoringASCIICase(name, "file") || equalsIgnoringASCIICase(name, "filename") {
            self = .file
        } else if equalsIgnoringASCIICase(name, "any") {
            self = .any
        } else if name == Array("base".utf8) {
            self = .base
        } else if name == Array("modified-since".utf8) {
            self = .modifiedSince
        } else if name == Array("added-since".utf8) {
            self = .addedSince
        } else if equalsIgnoringASCIICase(name, "AudioFormat") {
            self = .audioFormat
        } else if equalsIgnoringASCIICase(name, "prio") {
            self = .priority
        } else if let tag = tagName(name) {
            self = .tag(tag)
        } else {
            return nil
        }
    }
}

/// `SongFilter::ParseExpression` over the bytes of one argument. Reads past the end yield NUL, like the C string
/// MPD walks, and `position` may step past the end once (the skipped `(` after `AND`).
private struct ExpressionParser {
    let bytes: [UInt8]
    let foldCase: Bool
    let validateRegex: FilterParser.RegexValidator?
    var position = 0

    init(bytes: [UInt8], foldCase: Bool, validateRegex: FilterParser.RegexValidator?) {
        self.bytes = bytes
        self.foldCase = foldCase
        self.validateRegex = validateRegex
    }

    var current: UInt8 { self[0] }

    subscript(offset: Int) -> UInt8 {
        let index = position + offset
        return index < bytes.count ? bytes[index] : 0
    }

    /// `StripLeft`: skips bytes 0x01…0x20.
    mutating func stripLeft() {
        while position < bytes.count, bytes[position] != 0, bytes[position] <= 0x20 { position += 1 }
    }

    /// A `(` whose contents are not finished yet.
    private enum Pending {
        /// `((first)`: either `)` (a redundant group) or `AND` follows.
        case group
        /// `((a) AND (b) AND …`: more items or `)` follow.
        case and([FilterExpression])
        /// `(!(inner)`: `)` follows.
        case not
    }

    /// `SongFilter::ParseExpression`, iterative: MPD recurses once per `(`, and an 8 KiB request line of
    /// `((((…` would then need megabytes of stack in Swift. MPD's error order is kept: each level finishes
    /// (`)`/`AND` checks) exactly when the recursive version would return to it.
    mutating func parseExpression() throws(ACKError) -> FilterExpression {
        var stack: [Pending] = []
        while true {
            // Descend: MPD asserts `*s == '('` here; release builds skip the byte unchecked (see `FilterParser`).
            position += 1
            stripLeft()
            if current == UInt8(ascii: "(") {
                stack.append(.group)
                continue
            }
            if current == UInt8(ascii: "!") {
                position += 1
                stripLeft()
                guard current == UInt8(ascii: "(") else { throw ACKError(.unknown, "'(' expected") }
                stack.append(.not)
                continue
            }
            var result = try parseLeaf()

            // Ascend until some level needs another sub-expression.
            ascending: while let pending = stack.popLast() {
                switch pending {
                case .group:
                    if current == UInt8(ascii: ")") {
                        position += 1
                        stripLeft()
                        continue ascending
                    }
                    guard try expectWord() == Array("AND".utf8) else { throw ACKError(.unknown, "'AND' expected") }
                    stack.append(.and([result]))
                    break ascending
                case .and(var items):
                    items.append(result)
                    if current == UInt8(ascii: ")") {
                        position += 1
                        stripLeft()
                        result = .and(items)
                        continue ascending
                    }
                    guard try expectWord() == Array("AND".utf8) else { throw ACKError(.unknown, "'AND' expected") }
                    stack.append(.and(items))
                    break ascending
                case .not:
                    try expectClosingParenthesis()
                    result = .not(result)
                }
            }
            if stack.isEmpty { return result }
        }
    }

    /// `(TYPE …)` after its `(`: everything that is not a group, a negation or an `AND`.
    private mutating func parseLeaf() throws(ACKError) -> FilterExpression {
        let name = try expectWord()
        guard let type = FilterType(name) else {
            throw ACKError(.unknown, "Unknown filter type: \(String(decoding: name, as: UTF8.self))")
        }

        switch type {
        case .modifiedSince, .addedSince:
            let value = try expectQuoted()
            try expectClosingParenthesis()
            let time = try FilterParser.parseTimestamp(value)
            return type == .modifiedSince ? .modifiedSince(time) : .addedSince(time)
        case .base:
            let value = try expectQuoted()
            try expectClosingParenthesis()
            return .base(String(decoding: value, as: UTF8.self))
        case .audioFormat:
            let mask: Bool
            if self[0] == UInt8(ascii: "="), self[1] == UInt8(ascii: "=") {
                mask = false
            } else if self[0] == UInt8(ascii: "="), self[1] == UInt8(ascii: "~") {
                mask = true
            } else {
                throw ACKError(.unknown, "'==' or '=~' expected")
            }
            position += 2
            stripLeft()
            let format = try FilterParser.parseAudioFormat(try expectQuoted()[...], mask: mask)
            try expectClosingParenthesis()
            return .audioFormat(format)
        case .priority:
            guard self[0] == UInt8(ascii: ">"), self[1] == UInt8(ascii: "=") else {
                throw ACKError(.unknown, "'>=' expected")
            }
            position += 2
            stripLeft()
            let number = cStrtoul(bytes, from: position)
            guard number.consumed > 0 else { throw ACKError(.unknown, "Number expected") }
            guard number.value <= 0xFF else { throw ACKError(.unknown, "Invalid priority value") }
            position += number.consumed
            // No blank is allowed before this `)`: MPD checks the byte right after the number.
            try expectClosingParenthesis()
            return .priority(atLeast: Int(number.value))
        case .file:
            return .tag(.file, try parseStringMatchAndClose())
        case .any:
            return .tag(.any, try parseStringMatchAndClose())
        case .tag(let tag):
            return .tag(.tag(tag), try parseStringMatchAndClose())
        }
    }

    private mutating func parseStringMatchAndClose() throws(ACKError) -> StringMatch {
        let match = try parseStringMatch()
        try expectClosingParenthesis()
        return match
    }

    /// The 0.24 operators with an explicit case rule, tried before the plain ones. The trailing space is part of
    /// each (`strncasecmp` prefix), so `contains'x'` or a tab after the word is not an operator.
    private static let explicitOperators: [(prefix: [UInt8], kind: StringMatch.Kind, negated: Bool, foldCase: Bool)] = [
        (Array("contains_cs ".utf8), .contains, false, false),
        (Array("!contains_cs ".utf8), .contains, true, false),
        (Array("contains_ci ".utf8), .contains, false, true),
        (Array("!contains_ci ".utf8), .contains, true, true),
        (Array("starts_with_cs ".utf8), .startsWith, false, false),
        (Array("!starts_with_cs ".utf8), .startsWith, true, false),
        (Array("starts_with_ci ".utf8), .startsWith, false, true),
        (Array("!starts_with_ci ".utf8), .startsWith, true, true),
        (Array("eq_cs ".utf8), .equals, false, false),
        (Array("!eq_cs ".utf8), .equals, true, false),
        (Array("eq_ci ".utf8), .equals, false, true),
        (Array("!eq_ci ".utf8), .equals, true, true),
    ]

    private static let commandOperators: [(prefix: [UInt8], kind: StringMatch.Kind, negated: Bool)] = [
        (Array("contains ".utf8), .contains, false),
        (Array("!contains ".utf8), .contains, true),
        (Array("starts_with ".utf8), .startsWith, false),
        (Array("!starts_with ".utf8), .startsWith, true),
    ]

    /// `ParseStringFilter`.
    private mutating func parseStringMatch() throws(ACKError) -> StringMatch {
        for op in Self.explicitOperators where hasPrefixIgnoringASCIICase(op.prefix) {
            position += op.prefix.count
            stripLeft()
            let value = try expectQuoted()
            return StringMatch(String(decoding: value, as: UTF8.self), op.kind, negated: op.negated,
                               foldCase: op.foldCase)
        }
        for op in Self.commandOperators where hasPrefixIgnoringASCIICase(op.prefix) {
            position += op.prefix.count
            stripLeft()
            let value = try expectQuoted()
            return StringMatch(String(decoding: value, as: UTF8.self), op.kind, negated: op.negated,
                               foldCase: foldCase)
        }

        let negated: Bool
        if (self[0] == UInt8(ascii: "!") || self[0] == UInt8(ascii: "=")) && self[1] == UInt8(ascii: "~") {
            negated = self[0] == UInt8(ascii: "!")
            position += 2
            stripLeft()
            let pattern = String(decoding: try expectQuoted(), as: UTF8.self)
            try validateRegex?(pattern, foldCase)
            return StringMatch(pattern, .regex, negated: negated, foldCase: foldCase)
        }

        if self[0] == UInt8(ascii: "!") && self[1] == UInt8(ascii: "=") {
            negated = true
        } else if self[0] == UInt8(ascii: "=") && self[1] == UInt8(ascii: "=") {
            negated = false
        } else {
            let rest = position < bytes.count ? bytes[position...] : []
            throw ACKError(.unknown, "Unknown filter operator: \(String(decoding: rest, as: UTF8.self))")
        }
        position += 2
        stripLeft()
        let value = try expectQuoted()
        return StringMatch(String(decoding: value, as: UTF8.self), .equals, negated: negated, foldCase: foldCase)
    }

    /// `ExpectWord`: letters, `_` and `-`, then blanks.
    private mutating func expectWord() throws(ACKError) -> [UInt8] {
        let start = position
        while position < bytes.count, isTagNameCharacter(bytes[position]) { position += 1 }
        guard position > start else { throw ACKError(.unknown, "Word expected") }
        let word = Array(bytes[start..<position])
        stripLeft()
        return word
    }

    /// `ExpectQuoted`: `"…"` or `'…'`, a backslash escapes the next byte, at most 4095 bytes, then blanks.
    private mutating func expectQuoted() throws(ACKError) -> [UInt8] {
        let quote = current
        position += 1
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw ACKError(.unknown, "Quoted string expected")
        }
        var value: [UInt8] = []
        while current != quote {
            if current == UInt8(ascii: "\\") { position += 1 }
            guard current != 0 else { throw ACKError(.unknown, "Closing quote not found") }
            value.append(current)
            position += 1
            guard value.count < FilterParser.maximumValueLength + 1 else {
                throw ACKError(.unknown, "Quoted value is too long")
            }
        }
        position += 1
        stripLeft()
        return value
    }

    private mutating func expectClosingParenthesis() throws(ACKError) {
        guard current == UInt8(ascii: ")") else { throw ACKError(.unknown, "')' expected") }
        position += 1
        stripLeft()
    }

    private func hasPrefixIgnoringASCIICase(_ prefix: [UInt8]) -> Bool {
        for (offset, byte) in prefix.enumerated() where asciiLowercase(self[offset]) != asciiLowercase(byte) {
            return false
        }
        return true
    }

    private func isTagNameCharacter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-")
    }
}

// MARK: - Audio formats

extension FilterParser {
    /// `ParseAudioFormat` (`src/pcm/AudioParser.cxx`).
    fileprivate static func parseAudioFormat(_ text: ArraySlice<UInt8>, mask: Bool) throws(ACKError)
        -> AudioFormatMatch
    {
        let dsdPrefix = Array("dsd".utf8)
        if text.starts(with: dsdPrefix) {
            // `dsd64:2`: the number implies the sample rate.
            let (rateText, channelsText) = split(text.dropFirst(dsdPrefix.count))
            guard let channelsText else { throw ACKError(.arg, "Channel count missing") }
            guard let dsd = parseDecimal(rateText, maximum: UInt64(UInt16.max)) else {
                throw ACKError(.arg, "Failed to parse the DSD rate")
            }
            guard dsd >= 32, dsd <= 4096 else { throw ACKError(.arg, "Bad DSD rate") }
            return AudioFormatMatch(sampleRate: UInt32(dsd * 44100 / 8), sampleFormat: .dsd,
                                    channels: try parseChannelCount(channelsText, mask: mask))
        }

        let (rateText, rest) = split(text)
        let rate = try parseSampleRate(rateText, mask: mask)
        guard let rest else { throw ACKError(.arg, "Sample format missing") }
        let (formatText, channelsText) = split(rest)
        let format = try parseSampleFormat(formatText, mask: mask)
        guard let channelsText else { throw ACKError(.arg, "Channel count missing") }
        return AudioFormatMatch(sampleRate: rate, sampleFormat: format,
                                channels: try parseChannelCount(channelsText, mask: mask))
    }

    private static func parseSampleRate(_ text: ArraySlice<UInt8>, mask: Bool) throws(ACKError) -> UInt32 {
        if mask, text.elementsEqual([UInt8(ascii: "*")]) { return 0 }
        guard let value = parseDecimal(text, maximum: UInt64(UInt32.max)) else {
            throw ACKError(.arg, "Failed to parse the sample rate")
        }
        // `audio_valid_sample_rate`.
        guard value > 0, value < 1 << 30 else { throw ACKError(.arg, "Invalid sample rate: \(value)") }
        return UInt32(value)
    }

    private static func parseSampleFormat(_ text: ArraySlice<UInt8>, mask: Bool) throws(ACKError)
        -> AudioFormatMatch.SampleFormat?
    {
        if mask, text.elementsEqual([UInt8(ascii: "*")]) { return nil }
        switch String(decoding: text, as: UTF8.self) {
        case "f": return .float
        case "dsd": return .dsd
        case "8": return .s8
        case "16": return .s16
        case "24", "24_3": return .s24
        case "32": return .s32
        case let other: throw ACKError(.arg, "Invalid sample format: \(MessageText.quoted(other))")
        }
    }

    private static func parseChannelCount(_ text: ArraySlice<UInt8>, mask: Bool) throws(ACKError) -> UInt8 {
        if mask, text.elementsEqual([UInt8(ascii: "*")]) { return 0 }
        guard let value = parseDecimal(text, maximum: UInt64(UInt8.max)) else {
            throw ACKError(.arg, "Failed to parse the channel count")
        }
        // `audio_valid_channel_count`: 1…MAX_CHANNELS (8).
        guard value >= 1, value <= 8 else { throw ACKError(.arg, "Invalid channel count: \(value)") }
        return UInt8(value)
    }

    /// `Split(s, ':')`: at the first colon; the second part is `nil` when there is none.
    private static func split(_ text: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>?) {
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return (text, nil) }
        return (text[..<colon], text[(colon + 1)...])
    }

    /// `ParseInteger<T>` (`std::from_chars` over the whole string): digits only, no sign, no blanks, in range.
    private static func parseDecimal(_ text: ArraySlice<UInt8>, maximum: UInt64) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in text {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + UInt64(byte - 0x30)
            guard value <= maximum else { return nil }
        }
        return value
    }
}

// MARK: - Time stamps

extension FilterParser {
    fileprivate static func parseTimestamp(_ text: [UInt8]) throws(ACKError) -> Int64 {
        let seconds: Int64
        do {
            seconds = try ISO8601.parse(text)
        } catch {
            // An integral UNIX time stamp (`strtoull`, whole string, at least one byte consumed).
            let number = cStrtoull(text)
            guard number.consumed > 0, number.consumed == text.count else { throw error }
            seconds = Int64(bitPattern: number.value)
        }
        return asSystemClock(seconds)
    }

    /// MPD keeps the time as a `std::chrono::system_clock::time_point` (`from_time_t`): nanoseconds in 64 bits, which
    /// wrap around after the year 2262, so `(added-since '2999-01-01')` means a time in 1830 and matches every song.
    /// The answer is the first whole second at or after that wrapped time, which compares with file times as MPD's
    /// nanoseconds do.
    static func asSystemClock(_ seconds: Int64) -> Int64 {
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue
        let whole = nanoseconds / 1_000_000_000
        return nanoseconds > 0 && nanoseconds % 1_000_000_000 != 0 ? whole + 1 : whole
    }
}

/// MPD's `ParseISO8601` (`src/time/ISO8601.cxx`) on top of glibc's `strptime`, reimplemented for the handful of
/// conversions MPD uses (`%Y %m %d %H %M %S`): each skips leading `isspace` bytes and reads at most its width
/// of digits, stopping early when one more digit would exceed the maximum (so `%m` reads only `2` of `23`).
private enum ISO8601 {
    struct Fields {
        var year = 0  // full year
        var month = 0  // 0…11
        var day = 0  // 1…31
        var hour = 0
        var minute = 0
        var second = 0
    }

    enum Directive {
        case year, month, day, hour, minute, second
        case literal(UInt8)
    }

    static func parse(_ s: [UInt8]) throws(ACKError) -> Int64 {
        var fields = Fields()
        if strptime(s, 0, [.year, .literal(UInt8(ascii: "-")), .month], &fields) == s.count {
            // A whole month.
            fields.day = 1
            return timegm(fields)
        }
        var end = strptime(s, 0, [.year, .literal(UInt8(ascii: "-")), .month, .literal(UInt8(ascii: "-")), .day],
                           &fields)
        if end == nil { end = strptime(s, 0, [.year, .month, .day], &fields) }
        guard var p = end else { throw ACKError(.arg, "Failed to parse date") }

        if byte(s, p) == UInt8(ascii: "T") {
            guard let after = parseTimeOfDay(s, p + 1, &fields) else {
                throw ACKError(.arg, "Failed to parse time of day")
            }
            p = after
        }

        var time = timegm(fields)
        if byte(s, p) == UInt8(ascii: "Z") {
            p += 1
        } else if byte(s, p) == UInt8(ascii: "+") || byte(s, p) == UInt8(ascii: "-") {
            time -= try parseTimeZoneOffset(s, &p)
        }
        guard p >= s.count else { throw ACKError(.arg, "Garbage at end of time stamp") }
        return time
    }

    /// `ParseTimeOfDay`: `HH`, `HH:MM`, `HH:MM:SS`, `HHMM`, `HHMMSS`. `nil` on error.
    private static func parseTimeOfDay(_ s: [UInt8], _ start: Int, _ fields: inout Fields) -> Int? {
        guard var p = strptime(s, start, [.hour], &fields), p != start else { return nil }
        if byte(s, p) == UInt8(ascii: ":") {
            p += 1
            guard let afterMinute = strptime(s, p, [.minute], &fields), afterMinute != p else { return nil }
            p = afterMinute
            guard byte(s, p) == UInt8(ascii: ":") else { return p }
            p += 1
            guard let afterSecond = strptime(s, p, [.second], &fields), afterSecond != p else { return nil }
            return afterSecond
        }
        guard let afterMinute = strptime(s, p, [.minute], &fields), afterMinute != p else { return p }
        p = afterMinute
        guard let afterSecond = strptime(s, p, [.second], &fields), afterSecond != p else { return p }
        return afterSecond
    }

    /// `ParseTimeZoneOffset`: the signed offset to subtract, in seconds.
    private static func parseTimeZoneOffset(_ s: [UInt8], _ p: inout Int) throws(ACKError) -> Int64 {
        let negative = byte(s, p) == UInt8(ascii: "-")
        p += 1
        // `ParseTimeZoneOffsetRaw` uses `strtoul` and checks how many bytes it consumed, so a sign or blanks
        // count; the values are truncated to `unsigned` as in C++.
        let first = cStrtoul(s, from: p)
        let hours: UInt32
        var minutes: UInt32 = 0
        if first.consumed == 4 {
            p += 4
            hours = UInt32(truncatingIfNeeded: first.value / 100)
            minutes = UInt32(truncatingIfNeeded: first.value % 100)
        } else if first.consumed == 2 {
            p += 2
            hours = UInt32(truncatingIfNeeded: first.value)
            if byte(s, p) == UInt8(ascii: ":") {
                p += 1
                let second = cStrtoul(s, from: p)
                guard second.consumed == 2 else { throw ACKError(.arg, "Failed to parse time zone offset") }
                p += 2
                minutes = UInt32(truncatingIfNeeded: second.value)
            }
        } else {
            throw ACKError(.arg, "Failed to parse time zone offset")
        }
        guard hours <= 13 else { throw ACKError(.arg, "Time offset hours out of range") }
        guard minutes < 60 else { throw ACKError(.arg, "Time offset minutes out of range") }
        let offset = Int64(hours) * 3600 + Int64(minutes) * 60
        return negative ? -offset : offset
    }

    /// glibc's `strptime` for the directives above; returns the index after the match, or `nil`. Like glibc it
    /// stores each field as soon as it is read, so a failed attempt leaves fields behind (MPD reuses its `tm`).
    private static func strptime(_ s: [UInt8], _ start: Int, _ format: [Directive], _ fields: inout Fields) -> Int? {
        var p = start
        for directive in format {
            switch directive {
            case .literal(let expected):
                guard byte(s, p) == expected else { return nil }
                p += 1
            case .year:
                guard let value = number(s, &p, 0, 9999, 4) else { return nil }
                fields.year = value
            case .month:
                guard let value = number(s, &p, 1, 12, 2) else { return nil }
                fields.month = value - 1
            case .day:
                guard let value = number(s, &p, 1, 31, 2) else { return nil }
                fields.day = value
            case .hour:
                guard let value = number(s, &p, 0, 23, 2) else { return nil }
                fields.hour = value
            case .minute:
                guard let value = number(s, &p, 0, 59, 2) else { return nil }
                fields.minute = value
            case .second:
                guard let value = number(s, &p, 0, 61, 2) else { return nil }
                fields.second = value
            }
        }
        return p
    }

    /// glibc's `get_number(from, to, n)`.
    private static func number(_ s: [UInt8], _ p: inout Int, _ from: Int, _ to: Int, _ width: Int) -> Int? {
        while isCSpace(byte(s, p)) { p += 1 }
        guard isDigit(byte(s, p)) else { return nil }
        var value = 0
        var remaining = width
        repeat {
            value = value * 10 + Int(byte(s, p) - 0x30)
            p += 1
            remaining -= 1
        } while remaining > 0 && value * 10 <= to && isDigit(byte(s, p))
        guard value >= from, value <= to else { return nil }
        return value
    }

    /// `timegm` for the ranges `strptime` produces (a day past the month's end rolls over, as `timegm` does).
    private static func timegm(_ fields: Fields) -> Int64 {
        let days = daysFromCivil(year: Int64(fields.year), month: Int64(fields.month) + 1) + Int64(fields.day) - 1
        return days * 86400 + Int64(fields.hour) * 3600 + Int64(fields.minute) * 60 + Int64(fields.second)
    }

    /// Days from 1970-01-01 to the first of the month, proleptic Gregorian (H. Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int64, month: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    private static func byte(_ s: [UInt8], _ index: Int) -> UInt8 { index < s.count ? s[index] : 0 }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    /// `isspace` in the C locale.
    private static func isCSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
}

// MARK: - Byte helpers

/// The bytes MPD sees of an argument: a C string ends at the first NUL.
private func cString(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    guard let nul = bytes.firstIndex(of: 0) else { return bytes }
    return Array(bytes[..<nul])
}

private func decodeCString(_ text: String) -> String { String(decoding: cString(text), as: UTF8.self) }

private func asciiLowercase(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }

/// `strcasecmp(a, b) == 0` for ASCII (MPD's `StringEqualsCaseASCII`, `StringIsEqualIgnoreCase`).
private func equalsIgnoringASCIICase(_ bytes: [UInt8], _ literal: String) -> Bool {
    let other = Array(literal.utf8)
    return bytes.count == other.count && zip(bytes, other).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
}

/// `tag_name_parse_i`: ASCII case-insensitive only (Swift's `lowercased()` would also fold, e.g., the Kelvin sign).
private func tagName(_ bytes: [UInt8]) -> TagName? {
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
    return TagName(parsing: String(decoding: bytes, as: UTF8.self))
}

/// `uri_safe_local` (`src/util/UriUtil.cxx`): no empty, `.` or `..` segment, not absolute, no trailing slash.
private func isSafeLocalURI(_ bytes: [UInt8]) -> Bool {
    var p = 0
    while true {
        // `verify_uri_segment`.
        var dots = 0
        while p < bytes.count, bytes[p] == UInt8(ascii: ".") {
            p += 1
            dots += 1
        }
        if dots <= 2, p >= bytes.count || bytes[p] == UInt8(ascii: "/") { return false }
        // `strchr(p + 1, '/')`: MPD starts one byte on (past the end for `...`, where it finds nothing).
        guard p + 1 < bytes.count, let slash = bytes[(p + 1)...].firstIndex(of: UInt8(ascii: "/")) else {
            return true
        }
        p = slash + 1
    }
}

/// `strtoul(s + start, &end, 10)` → (value, bytes consumed), with C's leading blanks, sign and wrap-around.
private func cStrtoul(_ bytes: [UInt8], from start: Int) -> (value: UInt, consumed: Int) {
    var buffer = start < bytes.count ? bytes[start...].map { CChar(bitPattern: $0) } : []
    buffer.append(0)
    return buffer.withUnsafeMutableBufferPointer { pointer in
        guard let base = pointer.baseAddress else { return (0, 0) }
        var end: UnsafeMutablePointer<CChar>?
        let value = strtoul(base, &end, 10)
        return (value, end.map { $0 - base } ?? 0)
    }
}

/// `strtoull(s, &end, 10)` → (value, bytes consumed).
private func cStrtoull(_ bytes: [UInt8]) -> (value: UInt64, consumed: Int) {
    var buffer = bytes.map { CChar(bitPattern: $0) }
    buffer.append(0)
    return buffer.withUnsafeMutableBufferPointer { pointer in
        guard let base = pointer.baseAddress else { return (0, 0) }
        var end: UnsafeMutablePointer<CChar>?
        let value = strtoull(base, &end, 10)
        return (UInt64(value), end.map { $0 - base } ?? 0)
    }
}
