import Foundation
import Lyrics
import Testing

/// `lrc()` and `plainText()`, and reading `lrc()` back.
@Suite struct LyricsRenderingTests {
    static let lyrics = Lyrics(lines: [
        Lyrics.Line(start: 0, end: 12_000, text: "credit"),
        Lyrics.Line(start: 12_000, end: 20_000, text: "Hello world", words: [
            Lyrics.Word(start: 12_000, duration: 400, text: "Hel"),
            Lyrics.Word(start: 12_400, duration: 700, text: "lo "),
            Lyrics.Word(start: 13_100, duration: 900, text: "world"),
        ], translation: "你好世界", romanization: "not written"),
        Lyrics.Line(start: 20_000, text: "line\nbreak", translation: ""),
        Lyrics.Line(start: 25_000, text: ""),
        Lyrics.Line(start: 3_662_505, text: "late"),
    ], metadata: ["ti": "Title", "ar": "Artist", "offset": "200", "by": "two\nlines"])

    @Test func lrcText() {
        #expect(Self.lyrics.lrc() == """
            [ar:Artist]
            [by:two lines]
            [ti:Title]
            [00:00.00]credit
            [00:12.00]<00:12.00>Hel<00:12.40>lo <00:13.10>world<00:14.00>
            [00:12.00]你好世界
            [00:20.00]line break
            [00:25.00]
            [61:02.51]late

            """)
    }

    @Test func wordGapsAndUnknownDurations() {
        let lyrics = Lyrics(lines: [Lyrics.Line(start: 1_000, text: "abc", words: [
            Lyrics.Word(start: 1_000, duration: 200, text: "a"),
            Lyrics.Word(start: 1_500, text: "b"),
            Lyrics.Word(start: 1_600, duration: 204, text: "c"),
        ])])
        #expect(lyrics.lrc() == "[00:01.00]<00:01.00>a<00:01.20><00:01.50>b<00:01.60>c<00:01.80>\n")
    }

    @Test(arguments: [(0, "00:00.00"), (4, "00:00.00"), (5, "00:00.01"), (59_995, "01:00.00"), (-20, "00:00.00"),
                      (6_000_000, "100:00.00"), (Int.max, "153722867280912:55.81")] as [(Int, String)])
    func timestamps(milliseconds: Int, stamp: String) {
        #expect(Lyrics(lines: [Lyrics.Line(start: milliseconds, text: "x")]).lrc() == "[\(stamp)]x\n")
    }

    @Test func unsyncedLRCIsTheText() {
        #expect(Lyrics(text: "line one\n[Chorus]\nline two", metadata: ["ar": "A"]).lrc() == "line one\n[Chorus]\nline two")
        #expect(Lyrics().lrc() == "")
    }

    @Test func plainText() {
        #expect(Self.lyrics.plainText() == "credit\nHello world\n你好世界\nline\nbreak\n\nlate")
        #expect(Lyrics(text: "just text").plainText() == "just text")
        #expect(Lyrics().plainText() == "")
    }

    @Test func roundTripOfLRC() {
        let source = """
            [ar:Artist]
            [ti:Title]
            [00:01.00]<00:01.00>Hel<00:01.40>lo <00:02.10>world<00:03.00>
            [00:01.00]Hallo Welt
            [00:05.00][01:05.00]chorus
            [00:05.00][01:05.00]Refrain
            [00:07.50]
            [00:08.25]<00:08.25>a <00:08.50>gap <00:09.00><00:09.20>b
            [75:00.00]late
            """
        let lyrics = LRC.parse(source)
        #expect(lyrics.lines.count == 6)
        #expect(LRC.parse(lyrics.lrc()) == lyrics)
    }

    @Test func roundTripOfTheNetEaseSamples() throws {
        for name in ["lyric_new.json", "lyric.json"] {
            let lookup = NetEaseLyrics.lookup(fromJSON: try NetEaseLyricsTests.sample(name))
            let lyrics = try NetEaseLyricsTests.found(lookup)
            let reread = LRC.parse(lyrics.lrc())
            expectSameTimedContent(reread, lyrics, tolerance: 0)
            #expect(reread.metadata == lyrics.metadata)
        }
    }

    @Test func roundTripRoundsToCentiseconds() {
        let lyrics = Lyrics(lines: YRC.parse("""
            [1004,3000](1004,502,0)one (1506,997,0)two (2503,1501,0)three
            [4007,1000](4007,333,0)four
            """))
        expectSameTimedContent(LRC.parse(lyrics.lrc()), lyrics, tolerance: 5)
    }

    /// The same lines, texts, words and translations, times within `tolerance` (durations within twice that,
    /// as both of their ends are rounded). Ends are not compared: LRC has no end of its own.
    private func expectSameTimedContent(_ actual: Lyrics, _ expected: Lyrics, tolerance: Int,
                                        sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.lines.map(\.text) == expected.lines.map(\.text), sourceLocation: sourceLocation)
        #expect(actual.lines.map(\.translation) == expected.lines.map(\.translation), sourceLocation: sourceLocation)
        #expect(actual.lines.map { $0.words?.map(\.text) } == expected.lines.map { $0.words?.map(\.text) },
                sourceLocation: sourceLocation)
        for (read, line) in zip(actual.lines, expected.lines) {
            #expect(abs(read.start - line.start) <= tolerance, sourceLocation: sourceLocation)
            for (readWord, word) in zip(read.words ?? [], line.words ?? []) {
                #expect(abs(readWord.start - word.start) <= tolerance, sourceLocation: sourceLocation)
                #expect((readWord.duration == nil) == (word.duration == nil), sourceLocation: sourceLocation)
                #expect(abs((readWord.duration ?? 0) - (word.duration ?? 0)) <= 2 * tolerance,
                        sourceLocation: sourceLocation)
            }
        }
    }
}
