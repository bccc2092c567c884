/// What the parsers share: line splitting, trimming and digit runs.
///
/// The delimiters of every lyrics format are ASCII, so the parsers look for them in the UTF-8 view; an index found
/// there is always a Unicode scalar boundary, so slicing at it never splits a character's encoding.
enum TextScanning {
    /// Numbers saturate here while their digits are read (10^12), far above `Lyrics.maximumTime`, so an absurdly
    /// long digit run never overflows and is still recognisably too large.
    static let saturation = 1_000_000_000_000

    /// The lines of `text`, without a leading UTF-8 byte order mark; "\r\n", "\r" and "\n" each end a line.
    static func lines(of text: String) -> [Substring] {
        var body = Substring(text)
        if body.unicodeScalars.first == "\u{FEFF}" {
            body = Substring(body.unicodeScalars.dropFirst())
        }
        let utf8 = body.utf8
        var lines: [Substring] = []
        var lineStart = utf8.startIndex
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                index = utf8.index(after: index)
                continue
            }
            lines.append(body[lineStart..<index])
            index = utf8.index(after: index)
            if byte == UInt8(ascii: "\r"), index < utf8.endIndex, utf8[index] == UInt8(ascii: "\n") {
                index = utf8.index(after: index)
            }
            lineStart = index
        }
        lines.append(body[lineStart...])
        return lines
    }

    /// `text` without leading and trailing white space (Unicode's definition, which includes line ends).
    static func trimmed(_ text: Substring) -> Substring {
        trailingTrimmed(leadingTrimmed(text))
    }

    static func leadingTrimmed(_ text: Substring) -> Substring {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return Substring(scalars[first...])
    }

    static func trailingTrimmed(_ text: Substring) -> Substring {
        let scalars = text.unicodeScalars
        guard let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return Substring(scalars[...last])
    }

    /// `body` cut at its stamps, each written between `open` and `close` and read by `stamp`: the text before the
    /// first stamp (stamp nil), then each stamp with the text up to the next one. Bracketed text that `stamp` does
    /// not read stays text. Linear: every byte is looked at a bounded number of times, however the brackets nest.
    static func segments<Stamp>(_ body: Substring, open: Unicode.Scalar, close: Unicode.Scalar,
                                stamp: (Substring) -> Stamp?) -> [(stamp: Stamp?, text: Substring)] {
        let (open, close) = (UInt8(ascii: open), UInt8(ascii: close))
        let utf8 = body.utf8
        var segments: [(stamp: Stamp?, text: Substring)] = []
        var current: Stamp?
        var textStart = utf8.startIndex
        var searchStart = utf8.startIndex
        while let opening = utf8[searchStart...].firstIndex(of: open) {
            let inside = utf8.index(after: opening)
            guard let closing = utf8[inside...].firstIndex(where: { $0 == open || $0 == close }) else { break }
            guard utf8[closing] == close, let next = stamp(body[inside..<closing]) else {
                searchStart = utf8[closing] == open ? closing : utf8.index(after: closing)
                continue
            }
            segments.append((current, body[textStart..<opening]))
            current = next
            textStart = utf8.index(after: closing)
            searchStart = textStart
        }
        segments.append((current, body[textStart...]))
        return segments
    }

    /// The ASCII digits of `bytes`, when it is a non-empty run of them with nothing else but spaces and tabs
    /// around; nil otherwise.
    static func digits<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> [UInt8]? where Bytes.Element == UInt8 {
        let digits = Array(bytes.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        return !digits.isEmpty && digits.allSatisfy(isDigit) ? digits : nil
    }

    /// The value of `digits(bytes)`, saturating at `saturation`.
    static func number<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> Int? where Bytes.Element == UInt8 {
        digits(bytes)?.reduce(0) { value, digit in min(value * 10 + Int(digit - UInt8(ascii: "0")), saturation) }
    }

    /// A number (see `number(_:)`) that is a valid time: at most `Lyrics.maximumTime`.
    static func time<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> Int? where Bytes.Element == UInt8 {
        number(bytes).flatMap { $0 <= Lyrics.maximumTime ? $0 : nil }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}

extension Lyrics.Word {
    /// `words` without white space before the first word or after the last (what separates a line's text from its
    /// stamps), dropping edge words that were only white space.
    static func edgesTrimmed(_ words: [Lyrics.Word]) -> [Lyrics.Word] {
        let hasText = { (word: Lyrics.Word) in !TextScanning.trimmed(Substring(word.text)).isEmpty }
        guard let first = words.firstIndex(where: hasText), let last = words.lastIndex(where: hasText) else { return [] }
        var kept = Array(words[first...last])
        kept[0].text = String(TextScanning.leadingTrimmed(Substring(kept[0].text)))
        kept[kept.count - 1].text = String(TextScanning.trailingTrimmed(Substring(kept[kept.count - 1].text)))
        return kept
    }
}
