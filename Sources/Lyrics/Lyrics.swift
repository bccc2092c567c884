/// Lyrics from any source as one value: synced lines (optionally with word timings, a translation and a
/// romanization each), or unsynced plain text, plus the LRC ID tags.
///
/// Every time is an integer number of milliseconds from the start of the song. The parsers (`LRC`, `YRC`,
/// `NetEaseLyrics`) always produce lines sorted by `start` (stable: lines with equal starts keep their source order)
/// and never a time above ``maximumTime``; `lineIndex(at:)` relies on that order. The value encodes to JSON with
/// its property names as keys; absent optionals are left out.
public struct Lyrics: Sendable, Equatable, Codable {
    /// The synced lines, sorted by `start`; empty when the lyrics are unsynced.
    public var lines: [Line]
    /// The unsynced plain text, when the source has no timing at all; nil when synced (or when there is nothing).
    public var text: String?
    /// The LRC ID tags (`ar`, `ti`, `al`, `by`, `au`, `length`, `re`, `ve`, `offset`, …), keys lower-cased.
    /// `NetEaseLyrics` adds `translator` (the translation's `[by:…]`).
    public var metadata: [String: String]

    /// The largest time the parsers accept, in milliseconds (`Int32.max`, about 24.8 days): a larger stamp is not
    /// read as a time, so absurd numbers never overflow and every time fits a 32-bit integer in any client.
    public static let maximumTime = Int(Int32.max)

    public init(lines: [Line] = [], text: String? = nil, metadata: [String: String] = [:]) {
        self.lines = lines
        self.text = text
        self.metadata = metadata
    }

    /// True when there are timed lines.
    /// Lines given as (start, text) pairs in any order (ID3 `SYLT`): sorted, each ending where the next later one
    /// starts, as LRC lines do. Times outside 0…`maximumTime` are clamped.
    public init(timed pairs: [(milliseconds: Int, text: String)]) {
        self.init(lines: LRC.sortedWithEnds(pairs.map {
            Line(start: min(max($0.milliseconds, 0), Self.maximumTime), text: $0.text)
        }))
    }

    public var isSynced: Bool { !lines.isEmpty }

    /// True when there is nothing to show: no lines and no (or empty) text. Metadata alone does not count.
    public var isEmpty: Bool { lines.isEmpty && (text ?? "").isEmpty }

    /// One synced line.
    public struct Line: Sendable, Equatable, Codable {
        /// When the line begins.
        public var start: Int
        /// When the line ends, if the source says so (YRC does; LRC gives the next line's start; nil for the last
        /// LRC line and for NetEase's credit lines).
        public var end: Int?
        /// The line's text; empty for a pause. When `words` is set, it is their texts concatenated.
        public var text: String
        /// Word (syllable) timings, when the source has them (enhanced LRC, YRC).
        public var words: [Word]?
        /// The translation of the line, if any.
        public var translation: String?
        /// The romanization of the line (e.g. romaji, pinyin), if any.
        public var romanization: String?

        public init(start: Int, end: Int? = nil, text: String, words: [Word]? = nil, translation: String? = nil,
                    romanization: String? = nil) {
            self.start = start
            self.end = end
            self.text = text
            self.words = words
            self.translation = translation
            self.romanization = romanization
        }
    }

    /// One timed word or syllable of a line.
    public struct Word: Sendable, Equatable, Codable {
        /// When the word begins to be sung.
        public var start: Int
        /// How long it is sung, when known.
        public var duration: Int?
        /// The word as written, including any space that separates it from the next word.
        public var text: String

        public init(start: Int, duration: Int? = nil, text: String) {
            self.start = start
            self.duration = duration
            self.text = text
        }
    }

    /// The index of the line whose span holds `milliseconds`: the last line with `start <= milliseconds`, or nil
    /// before the first line. A line with a known `end` does not hold `end` or later times, so a gap after it (until
    /// a later line starts) gives nil; a line without an end holds every later time until the next line.
    ///
    /// This is what a now-playing page highlights for the player's elapsed time. O(log n).
    public func lineIndex(at milliseconds: Int) -> Int? {
        var low = 0
        var high = lines.count
        while low < high {  // the first line that starts after `milliseconds`
            let middle = low + (high - low) / 2
            if lines[middle].start <= milliseconds {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low > 0 else { return nil }
        let index = low - 1
        if let end = lines[index].end, milliseconds >= end { return nil }
        return index
    }
}
