import Foundation
import Lyrics
import Testing

/// The model: which line holds a time, and the JSON the HTTP API serves.
@Suite struct LyricsModelTests {
    static let lyrics = Lyrics(lines: [
        Lyrics.Line(start: 1_000, end: 3_000, text: "ends at 3 s"),
        Lyrics.Line(start: 5_000, text: "no end"),
        Lyrics.Line(start: 8_000, end: 9_000, text: "last, ends at 9 s"),
    ])

    @Test(arguments: [
        (-5, nil), (0, nil), (999, nil),  // before the first line
        (1_000, 0), (2_000, 0), (2_999, 0),  // exactly at a start, inside
        (3_000, nil), (4_999, nil),  // at an end, in the gap after it
        (5_000, 1), (7_999, 1),  // a line without an end lasts until the next one
        (8_000, 2), (8_999, 2), (9_000, nil), (100_000, nil), (Int.max, nil),  // after the last
        (Int.min, nil),
    ] as [(Int, Int?)])
    func lineIndex(time: Int, index: Int?) {
        #expect(Self.lyrics.lineIndex(at: time) == index)
    }

    @Test func lineIndexOfParsedLRC() {
        let lyrics = LRC.parse("[00:01.00]a\n[00:02.00]b1\n[00:02.00]\n[00:03.00]c")
        #expect(lyrics.lineIndex(at: 500) == nil)
        #expect(lyrics.lineIndex(at: 1_999) == 0)
        #expect(lyrics.lineIndex(at: 2_000) == 2)  // of lines starting together, the last one
        #expect(lyrics.lineIndex(at: 3_000) == 3)
        #expect(lyrics.lineIndex(at: 1_000_000) == 3)  // the last LRC line has no end
        #expect(Lyrics().lineIndex(at: 0) == nil)
        #expect(Lyrics(text: "plain").lineIndex(at: 0) == nil)
    }

    @Test func isSyncedAndIsEmpty() {
        #expect(Self.lyrics.isSynced)
        #expect(!Lyrics(text: "plain").isSynced)
        #expect(!Lyrics(text: "plain").isEmpty)
        #expect(Lyrics(text: "").isEmpty)
        #expect(Lyrics(metadata: ["ar": "Artist"]).isEmpty)
        #expect(!Lyrics(lines: [Lyrics.Line(start: 0, text: "")]).isEmpty)
    }

    @Test func jsonShape() throws {
        let lyrics = Lyrics(lines: [
            Lyrics.Line(start: 1_000, end: 2_000, text: "Hi", words: [Lyrics.Word(start: 1_000, duration: 500, text: "Hi")],
                        translation: "你好"),
        ], metadata: ["ar": "A"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(lyrics), as: UTF8.self)
        #expect(json == #"{"lines":[{"end":2000,"start":1000,"text":"Hi","translation":"你好","#
            + #""words":[{"duration":500,"start":1000,"text":"Hi"}]}],"metadata":{"ar":"A"}}"#)
        #expect(try JSONDecoder().decode(Lyrics.self, from: Data(json.utf8)) == lyrics)
    }

    @Test func lookupJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let cases: [(LyricsLookup, String)] = [
            (.found(Lyrics(text: "la")), #"{"lyrics":{"lines":[],"metadata":{},"text":"la"},"status":"found"}"#),
            (.instrumental, #"{"status":"instrumental"}"#),
            (.uncollected, #"{"status":"uncollected"}"#),
            (.none, #"{"status":"none"}"#),
        ]
        for (lookup, expected) in cases {
            let json = String(decoding: try encoder.encode(lookup), as: UTF8.self)
            #expect(json == expected)
            #expect(try JSONDecoder().decode(LyricsLookup.self, from: Data(json.utf8)) == lookup)
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LyricsLookup.self, from: Data(#"{"status":"maybe"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LyricsLookup.self, from: Data(#"{"status":"found"}"#.utf8))
        }
    }

    /// Timed pairs (an ID3 SYLT frame lists them in any order): sorted stably, ends at the next later start,
    /// times clamped into range.
    @Test func timedPairsBecomeSortedLinesWithEnds() {
        let lyrics = Lyrics(timed: [(3000, "third"), (1000, "first"), (2000, "second"), (2000, "second, again"),
                                    (-5, "before zero"), (Int.max, "far")])
        #expect(lyrics.lines.map(\.text) == ["before zero", "first", "second", "second, again", "third", "far"])
        #expect(lyrics.lines.map(\.start) == [0, 1000, 2000, 2000, 3000, Lyrics.maximumTime])
        #expect(lyrics.lines.map(\.end) == [1000, 2000, 3000, 3000, Lyrics.maximumTime, nil])
        #expect(lyrics.lineIndex(at: 2500) == 3 && lyrics.isSynced && lyrics.text == nil)
    }
}
