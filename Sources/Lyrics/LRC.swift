/// The LRC lyrics format: sidecar `.lrc` files, lyrics embedded in tags, NetEase's `lrc`/`tlyric`/`romalrc` fields.
public enum LRC {
    /// Reads LRC text. Never fails: whatever is not understood is left out.
    ///
    /// - Time stamps: `[mm:ss]`, `[mm:ss.x]`, `[mm:ss.xx]`, `[mm:ss.xxx]`, `[mm:ss:xx]` and `[hh:mm:ss.xx]`;
    ///   minutes may exceed 59. A line may start with several stamps (`[00:12.00][01:30.50]chorus`): one line per
    ///   stamp. The text after the stamps is trimmed (inner spaces kept); an empty text is kept as a pause line.
    ///   A stamp larger than `Lyrics.maximumTime` is not a stamp.
    /// - ID tags: a line that is exactly `[key:value]` (the key an ASCII letter followed by letters, digits, `_` or
    ///   `-`) goes to `metadata` under the lower-cased key, its value trimmed; empty values are skipped, and a later
    ///   tag replaces an earlier one. `[offset:±N]` (milliseconds, kept in `metadata` too) moves every time,
    ///   words included: a positive offset shows the lyrics sooner (`start = stamp − offset`), clamped to
    ///   `0...Lyrics.maximumTime`.
    /// - Enhanced (A2) word stamps: `[00:12.00]<00:12.00>Hel<00:12.40>lo <00:13.10>world` gives words, each lasting
    ///   until the next stamp (nil for the last). A stamp followed by no text only ends the word before it
    ///   (`world<00:14.00>`), which is how `Lyrics.lrc()` writes the last word's duration; text before the first
    ///   word stamp is a word starting with the line. Word stamps are absolute times for the line's first stamp;
    ///   for its other stamps they move along with the line.
    /// - Translations: NetEase and most players write a translation as a second line with the same stamp. So a
    ///   line becomes the `translation` of the line before it with the same stamp (as written, before the offset;
    ///   not necessarily the previous line of the file) when both have text, that line has no translation yet and
    ///   this one has no word stamps. A third line with the stamp stays a line.
    /// - Lines are sorted by start, stable; each line's `end` is the start of the next line that starts strictly
    ///   later, nil for the last ones. Lines without a stamp in a file that has stamps are ignored, except ID tags.
    /// - No stamp at all (a plain `.txt`, unsynced embedded lyrics): no lines, `text` is the input with line ends
    ///   normalised to "\n" and trailing white space trimmed (nil when nothing is left), and `metadata` is empty:
    ///   in plain lyrics, lines such as `[Chorus: Name]` are section headings, not tags, so the text is kept whole.
    /// - A leading UTF-8 byte order mark is skipped; "\r\n", "\r" and "\n" all end lines.
    public static func parse(_ text: String) -> Lyrics {
        let lines = TextScanning.lines(of: text)
        var metadata: [String: String] = [:]
        var entries: [Entry] = []
        for line in lines {
            let (stamps, rest) = leadingStamps(line)
            guard let firstStamp = stamps.first else {
                if let tag = idTag(line) { metadata[tag.key] = tag.value }
                continue
            }
            let content = lineContent(rest, start: firstStamp)
            for stamp in stamps {
                let shift = stamp - firstStamp
                let words = content.words.map { words in words.map { word in
                    Lyrics.Word(start: word.start + shift, duration: word.duration, text: word.text)
                } }
                entries.append(Entry(stamp: stamp, text: content.text, words: words))
            }
        }
        guard !entries.isEmpty else { return unsynced(lines) }
        let offset = metadata["offset"].flatMap(offsetMilliseconds) ?? 0
        return Lyrics(lines: timedLines(foldingTranslations(entries), offset: offset), metadata: metadata)
    }

    /// One line per stamp, with times as written.
    private struct Entry {
        var stamp: Int
        var text: String
        var words: [Lyrics.Word]?
        var translation: String?
    }

    /// The stamps at the start of `line` and the text after them.
    private static func leadingStamps(_ line: Substring) -> (stamps: [Int], rest: Substring) {
        var rest = TextScanning.leadingTrimmed(line)
        var stamps: [Int] = []
        while rest.utf8.first == UInt8(ascii: "["), let close = rest.utf8.firstIndex(of: UInt8(ascii: "]")),
              let stamp = LRCTimestamp.milliseconds(rest[rest.utf8.index(after: rest.startIndex)..<close]) {
            stamps.append(stamp)
            rest = rest[rest.utf8.index(after: close)...]
        }
        return (stamps, rest)
    }

    /// `[key:value]` as a lower-cased key and a trimmed, non-empty value.
    private static func idTag(_ line: Substring) -> (key: String, value: String)? {
        let body = TextScanning.trimmed(line)
        let utf8 = body.utf8
        guard utf8.count >= 2, utf8.first == UInt8(ascii: "["), utf8.last == UInt8(ascii: "]"),
              let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let key = body[utf8.index(after: utf8.startIndex)..<colon]
        let value = TextScanning.trimmed(body[utf8.index(after: colon)..<utf8.index(before: utf8.endIndex)])
        guard isTagKey(key), !value.isEmpty else { return nil }
        return (key.lowercased(), String(value))
    }

    private static func isTagKey(_ key: Substring) -> Bool {
        guard let first = key.utf8.first, isASCIILetter(first) else { return false }
        return key.utf8.allSatisfy { byte in
            isASCIILetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// `[offset:±N]` in milliseconds, its size clamped to `Lyrics.maximumTime`.
    private static func offsetMilliseconds(_ value: String) -> Int? {
        var digits = TextScanning.trimmed(Substring(value)).utf8[...]
        let sign = digits.first == UInt8(ascii: "-") ? -1 : 1
        if digits.first == UInt8(ascii: "-") || digits.first == UInt8(ascii: "+") {
            digits = digits.dropFirst()
        }
        return TextScanning.number(digits).map { sign * min($0, Lyrics.maximumTime) }
    }

    /// The text and words after a line's stamps; word times as written.
    private static func lineContent(_ rest: Substring, start: Int) -> (text: String, words: [Lyrics.Word]?) {
        let body = TextScanning.trimmed(rest)
        let segments = TextScanning.segments(body, open: "<", close: ">", stamp: LRCTimestamp.milliseconds)
        guard segments.count > 1 else { return (String(body), nil) }
        var words: [Lyrics.Word] = []
        var waiting: Int?  // the index of the word that lasts until the next stamp
        for segment in segments {
            if let time = segment.stamp, let index = waiting {
                let duration = time - words[index].start
                words[index].duration = duration >= 0 ? duration : nil
                waiting = nil
            }
            guard !segment.text.isEmpty else { continue }
            words.append(Lyrics.Word(start: segment.stamp ?? start, text: String(segment.text)))
            waiting = words.count - 1
        }
        words = Lyrics.Word.edgesTrimmed(words)
        return (words.map(\.text).joined(), words.isEmpty ? nil : words)
    }

    /// Makes a line the translation of the line before it with the same stamp (see `parse(_:)`).
    private static func foldingTranslations(_ entries: [Entry]) -> [Entry] {
        var result: [Entry] = []
        var lastIndexOfStamp: [Int: Int] = [:]
        for entry in entries {
            if let index = lastIndexOfStamp[entry.stamp], isTranslation(entry, of: result[index]) {
                result[index].translation = entry.text
                continue
            }
            lastIndexOfStamp[entry.stamp] = result.count
            result.append(entry)
        }
        return result
    }

    private static func isTranslation(_ candidate: Entry, of line: Entry) -> Bool {
        line.translation == nil && !line.text.isEmpty && !candidate.text.isEmpty && candidate.words == nil
    }

    /// The entries as lines: offset applied, sorted (stable), with ends.
    private static func timedLines(_ entries: [Entry], offset: Int) -> [Lyrics.Line] {
        let lines = entries.map { entry in
            Lyrics.Line(start: clampedTime(entry.stamp - offset), text: entry.text,
                        words: entry.words?.map { word in
                            Lyrics.Word(start: clampedTime(word.start - offset), duration: word.duration, text: word.text)
                        },
                        translation: entry.translation)
        }
        return sortedWithEnds(lines)
    }

    /// The lines sorted by start (stable), each ending where the next strictly later line starts; the last ones
    /// have no end.
    static func sortedWithEnds(_ lines: [Lyrics.Line]) -> [Lyrics.Line] {
        let sorted = lines.enumerated()
            .sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map(\.element)
        return withEnds(sorted)
    }

    /// Each line ends where the next strictly later line starts; the last ones have no end.
    private static func withEnds(_ sortedLines: [Lyrics.Line]) -> [Lyrics.Line] {
        var lines = sortedLines
        var nextStart: Int?
        for index in lines.indices.reversed() {
            if index + 1 < lines.count, lines[index + 1].start > lines[index].start {
                nextStart = lines[index + 1].start
            }
            lines[index].end = nextStart
        }
        return lines
    }

    private static func clampedTime(_ time: Int) -> Int {
        min(max(time, 0), Lyrics.maximumTime)
    }

    private static func unsynced(_ lines: [Substring]) -> Lyrics {
        let text = TextScanning.trailingTrimmed(Substring(lines.joined(separator: "\n")))
        return Lyrics(text: text.isEmpty ? nil : String(text))
    }
}
