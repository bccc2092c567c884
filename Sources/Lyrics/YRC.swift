import Foundation

/// NetEase's word-by-word lyrics: the `yrc` field of the `lyric_new` answer (`/api/song/lyric/v1`).
public enum YRC {
    /// Reads YRC text into lines sorted by start (stable). Never fails: unreadable lines are skipped.
    ///
    /// - A timed line is `[lineStartMs,lineDurationMs]` followed by words `(wordStartMs,wordDurationMs,0)word`:
    ///   `Line(start, end: start + duration, text: the words joined, words)`, the end at most `Lyrics.maximumTime`.
    ///   Times are absolute milliseconds.
    ///   The third number of a word stamp is ignored. Parentheses that do not form such a stamp are text, so
    ///   `(feat. X)` survives; text before the first stamp is a word starting with the line. White space before
    ///   the first word and after the last is trimmed; words without text are dropped. A line whose header is not
    ///   two numbers, or holds a time above `Lyrics.maximumTime`, is skipped (a word stamp with such a time is text).
    /// - A credit line is a JSON object `{"t":ms,"c":[{"tx":"作曲: "},{"tx":"Example Composer"}]}`:
    ///   `Line(start: t, end: nil, text: the tx values concatenated and trimmed, words: nil)`; skipped when that
    ///   text is empty.
    public static func parse(_ text: String) -> [Lyrics.Line] {
        let lines = TextScanning.lines(of: text).compactMap { line -> Lyrics.Line? in
            let body = TextScanning.trimmed(line)
            switch body.utf8.first {
            case UInt8(ascii: "["): return timedLine(body)
            case UInt8(ascii: "{"): return creditLine(body)
            default: return nil
            }
        }
        return lines.enumerated()
            .sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map(\.element)
    }

    /// `[start,duration](start,duration,0)word…`.
    private static func timedLine(_ body: Substring) -> Lyrics.Line? {
        let utf8 = body.utf8
        guard let close = utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
        let header = Array(utf8[utf8.index(after: utf8.startIndex)..<close])
            .split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard header.count == 2, let start = TextScanning.time(header[0]),
              let duration = TextScanning.time(header[1]) else { return nil }
        let end = min(start + duration, Lyrics.maximumTime)
        let content = TextScanning.trimmed(body[utf8.index(after: close)...])
        let segments = TextScanning.segments(content, open: "(", close: ")", stamp: wordStamp)
        guard segments.count > 1 else { return Lyrics.Line(start: start, end: end, text: String(content)) }
        let firstStampStart = segments.lazy.compactMap(\.stamp).first?.start ?? start
        let words = Lyrics.Word.edgesTrimmed(segments.compactMap { segment in
            guard !segment.text.isEmpty else { return nil }
            guard let stamp = segment.stamp else {  // text before the first stamp lasts until it
                let duration = firstStampStart - start
                return Lyrics.Word(start: start, duration: duration >= 0 ? duration : nil, text: String(segment.text))
            }
            return Lyrics.Word(start: stamp.start, duration: stamp.duration, text: String(segment.text))
        })
        return Lyrics.Line(start: start, end: end, text: words.map(\.text).joined(),
                           words: words.isEmpty ? nil : words)
    }

    /// `start,duration,n` (the inside of a word stamp).
    private static func wordStamp(_ inside: Substring) -> (start: Int, duration: Int)? {
        let fields = Array(inside.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard fields.count == 3, let start = TextScanning.time(fields[0]), let duration = TextScanning.time(fields[1]),
              TextScanning.number(fields[2]) != nil else { return nil }
        return (start, duration)
    }

    /// `{"t":ms,"c":[{"tx":…},…]}`.
    private static func creditLine(_ body: Substring) -> Lyrics.Line? {
        guard let credit = try? JSONDecoder().decode(Credit.self, from: Data(body.utf8)),
              (0...Lyrics.maximumTime).contains(credit.time) else { return nil }
        let text = TextScanning.trimmed(Substring(credit.parts.compactMap(\.text).joined()))
        return text.isEmpty ? nil : Lyrics.Line(start: credit.time, text: String(text))
    }

    private struct Credit: Decodable {
        var time: Int
        var parts: [Part]

        struct Part: Decodable {
            var text: String?

            enum CodingKeys: String, CodingKey {
                case text = "tx"
            }
        }

        enum CodingKeys: String, CodingKey {
            case time = "t"
            case parts = "c"
        }
    }
}
