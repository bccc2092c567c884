import Lyrics
import Testing

/// `LRC.parse`: enhanced (A2) word stamps and same-stamp translation lines.
@Suite struct EnhancedLRCTests {
    @Test func wordStamps() throws {
        let line = try #require(LRC.parse("[00:12.00]<00:12.00>Hel<00:12.40>lo <00:13.10>world").lines.first)
        #expect(line.start == 12_000)
        #expect(line.text == "Hello world")
        #expect(line.words == [
            Lyrics.Word(start: 12_000, duration: 400, text: "Hel"),
            Lyrics.Word(start: 12_400, duration: 700, text: "lo "),
            Lyrics.Word(start: 13_100, duration: nil, text: "world"),
        ])
    }

    @Test func aStampWithoutTextEndsTheWordBeforeIt() throws {
        let line = try #require(LRC.parse("[00:01.00]<00:01.00>one <00:01.50><00:02.00>two<00:02.75>  ").lines.first)
        #expect(line.text == "one two")
        #expect(line.words == [
            Lyrics.Word(start: 1_000, duration: 500, text: "one "),
            Lyrics.Word(start: 2_000, duration: 750, text: "two"),
        ])
    }

    @Test func textBeforeTheFirstWordStampStartsWithTheLine() throws {
        let line = try #require(LRC.parse("[00:05.00] Oh, <00:05.80>yeah").lines.first)
        #expect(line.text == "Oh, yeah")
        #expect(line.words == [
            Lyrics.Word(start: 5_000, duration: 800, text: "Oh, "),
            Lyrics.Word(start: 5_800, duration: nil, text: "yeah"),
        ])
    }

    @Test func whiteSpaceAtTheEdgesOfTheWordsIsTrimmed() throws {
        let line = try #require(LRC.parse("[00:01.00] <00:01.00> a <00:01.20> b <00:01.40> ").lines.first)
        #expect(line.text == "a  b")
        #expect(line.words?.map(\.text) == ["a ", " b"])
        #expect(line.words?.map(\.duration) == [200, 200])
    }

    @Test func anglesThatAreNotStampsAreText() throws {
        let line = try #require(LRC.parse("[00:01.00]a <3 b <00:02.00>c <x> <<00:03.00>d").lines.first)
        #expect(line.words?.map(\.text) == ["a <3 b ", "c <x> <", "d"])
        #expect(line.words?.map(\.start) == [1_000, 2_000, 3_000])
        #expect(line.text == "a <3 b c <x> <d")
    }

    @Test func wordsMoveWithRepeatedLineStamps() {
        let lyrics = LRC.parse("[00:10.00][01:00.00]<00:10.00>la <00:10.50>la")
        #expect(lyrics.lines.map { $0.words?.map(\.start) } == [[10_000, 10_500], [60_000, 60_500]])
        #expect(lyrics.lines.map(\.text) == ["la la", "la la"])
    }

    @Test func aLineOfOnlyStampsIsAPause() throws {
        let line = try #require(LRC.parse("[00:01.00]<00:01.00> <00:02.00>").lines.first)
        #expect(line.text == "")
        #expect(line.words == nil)
    }

    @Test func sameStampSecondLineIsTheTranslation() {
        let lyrics = LRC.parse("""
            [00:01.00]还没好好的感受
            [00:01.00]Haven't yet truly felt
            [00:02.00]雪花绽放的气候
            [00:02.00]the season when snowflakes bloom
            [00:03.00]third line
            """)
        #expect(lyrics.lines.map(\.text) == ["还没好好的感受", "雪花绽放的气候", "third line"])
        #expect(lyrics.lines.map(\.translation) == ["Haven't yet truly felt", "the season when snowflakes bloom", nil])
        #expect(lyrics.lines.map(\.end) == [2_000, 3_000, nil])
    }

    @Test func translationsAppendedAfterTheOriginalsAreFound() {
        let lyrics = LRC.parse("[00:01.00]one\n[00:02.00]two\n[00:01.00]eins\n[00:02.00]zwei")
        #expect(lyrics.lines.map(\.translation) == ["eins", "zwei"])
    }

    @Test func translationsFollowRepeatedStamps() {
        let lyrics = LRC.parse("[00:10.00][00:40.00]chorus\n[00:10.00][00:40.00]Refrain\n[00:20.00]verse")
        #expect(lyrics.lines.map(\.text) == ["chorus", "verse", "chorus"])
        #expect(lyrics.lines.map(\.translation) == ["Refrain", nil, "Refrain"])
    }

    @Test func sameStampLinesThatAreNotTranslationsStayLines() {
        // An empty line, a third line and a line with word stamps are never translations.
        let lyrics = LRC.parse("""
            [00:01.00]
            [00:01.00]after a pause
            [00:01.00]a translation
            [00:01.00]a third line
            [00:02.00]x
            [00:02.00]<00:02.00>y
            """)
        #expect(lyrics.lines.map(\.text) == ["", "after a pause", "a third line", "x", "y"])
        #expect(lyrics.lines.map(\.translation) == [nil, "a translation", nil, nil, nil])
    }

    @Test func translationsAreMatchedByStampBeforeTheOffset() {
        // With a 1.5 s offset both stamps clamp to 0, yet they stay two lines: only equal stamps pair up.
        let lyrics = LRC.parse("[offset:1500]\n[00:01.00]one\n[00:01.20]two")
        #expect(lyrics.lines.map(\.start) == [0, 0])
        #expect(lyrics.lines.map(\.text) == ["one", "two"])
        #expect(lyrics.lines.map(\.translation) == [nil, nil])
    }
}
