import Lyrics
import Testing

/// `LRC.parse`: stamps, tags, offset, order, ends and the unsynced fallback.
@Suite struct LRCTests {
    @Test(arguments: [
        ("[01:02]x", 62_000),
        ("[01:02.5]x", 62_500),
        ("[01:02.50]x", 62_500),
        ("[01:02.05]x", 62_050),
        ("[01:02.505]x", 62_505),
        ("[01:02.5059]x", 62_505),  // past milliseconds: dropped
        ("[01:02:50]x", 62_500),  // the colon form: centiseconds
        ("[1:2.3]x", 62_300),
        ("[75:00.00]x", 4_500_000),  // minutes above 59
        ("[1:02:03.40]x", 3_723_400),  // hours, with a decimal point
        ("[ 00:01.00 ]x", 1_000),
    ] as [(String, Int)])
    func timestampForms(line: String, start: Int) {
        let lyrics = LRC.parse(line)
        #expect(lyrics.lines.map(\.start) == [start])
        #expect(lyrics.lines.map(\.text) == ["x"])
        #expect(lyrics.text == nil)
    }

    @Test(arguments: ["[aa:bb]x", "[-00:01.00]x", "[00:01.]x", "[00:01.0a]x", "[1:2:3:4]x", "[00:1",
                      "[99999999999999999999:99.99]x", "[35791:23.65]x", "[]x", "[:]x", "[00:01.00 x"])
    func notTimestamps(line: String) {
        let lyrics = LRC.parse(line)
        #expect(lyrics.lines.isEmpty)
        #expect(lyrics.text == line)
    }

    @Test func largestTime() {
        // Int32.max milliseconds is 35791:23.647; a millisecond more is not a time.
        #expect(Lyrics.maximumTime == 2_147_483_647)
        #expect(LRC.parse("[35791:23.647]x").lines.map(\.start) == [2_147_483_647])
        #expect(LRC.parse("[35791:23.648]x").lines.isEmpty)
    }

    @Test func repeatedStampsGiveOneLinePerStamp() {
        let lyrics = LRC.parse("[00:12.00][01:30.50]chorus\n[00:20.00]verse")
        #expect(lyrics.lines.map(\.start) == [12_000, 20_000, 90_500])
        #expect(lyrics.lines.map(\.text) == ["chorus", "verse", "chorus"])
    }

    @Test func textIsTrimmedButKeepsInnerSpaces() {
        let lyrics = LRC.parse("[00:01.00]   two  words \t\n  [00:02.00]\u{3000}full-width space")
        #expect(lyrics.lines.map(\.text) == ["two  words", "full-width space"])
    }

    @Test func emptyTextIsAPause() {
        let lyrics = LRC.parse("[00:01.00]one\n[00:03.00]\n[00:05.00]   \n[00:07.00]two")
        #expect(lyrics.lines.map(\.text) == ["one", "", "", "two"])
        #expect(lyrics.lines.map(\.start) == [1_000, 3_000, 5_000, 7_000])
    }

    @Test func metadataTags() {
        let lyrics = LRC.parse("""
            [ar: Artist Name ]
            [TI:Title [Live]]
            [al:Album]
            [by:]
            [length: 03:45]
            [x-custom_1:value]
            [offset:0]
            [00:01.00]line
            """)
        #expect(lyrics.metadata == ["ar": "Artist Name", "ti": "Title [Live]", "al": "Album", "length": "03:45",
                                    "x-custom_1": "value", "offset": "0"])
        #expect(lyrics.lines.map(\.text) == ["line"])
    }

    @Test(arguments: [
        ("[offset:+500]", [500, 1_500]),
        ("[offset:500]", [500, 1_500]),
        ("[offset:-500]", [1_500, 2_500]),
        ("[offset:1500]", [0, 500]),  // clamped at 0
        ("[offset:99999999999999999999999]", [0, 0]),  // huge: clamped, no overflow
        ("[offset:-99999999999999999999999]", [Lyrics.maximumTime, Lyrics.maximumTime]),
        ("[offset:soon]", [1_000, 2_000]),  // unreadable: no offset
    ] as [(String, [Int])])
    func offsetMovesEveryTime(tag: String, starts: [Int]) {
        let lyrics = LRC.parse("[00:01.00]one\n\(tag)\n[00:02.00]two")
        #expect(lyrics.lines.map(\.start) == starts)
    }

    @Test func offsetMovesWordsToo() {
        let lyrics = LRC.parse("[offset:200]\n[00:01.00]<00:01.00>a<00:01.50>b")
        #expect(lyrics.lines.first?.words?.map(\.start) == [800, 1_300])
        #expect(lyrics.lines.first?.words?.map(\.duration) == [500, nil])
    }

    @Test func byteOrderMarkAndLineEnds() {
        let lyrics = LRC.parse("\u{FEFF}[ti:Title]\r\n[00:01.00]one\r\n[00:02.00]two\r[00:03.00]three\n")
        #expect(lyrics.metadata == ["ti": "Title"])
        #expect(lyrics.lines.map(\.text) == ["one", "two", "three"])
    }

    @Test func linesAreSortedStably() {
        let lyrics = LRC.parse("[00:03.00]c\n[00:01.00]a\n[00:02.00]b1\n[00:00.50]z\n[00:02.00]\n[00:02.00]b3")
        #expect(lyrics.lines.map(\.text) == ["z", "a", "b1", "", "b3", "c"])
    }

    @Test func endIsTheNextLaterStart() {
        let lyrics = LRC.parse("[00:01.00]a\n[00:02.00]b\n[00:02.00]\n[00:04.00]c\n[00:05.00]d")
        #expect(lyrics.lines.map(\.start) == [1_000, 2_000, 2_000, 4_000, 5_000])
        #expect(lyrics.lines.map(\.end) == [2_000, 4_000, 4_000, 5_000, nil])
    }

    @Test func untimedLinesInASyncedFileAreIgnored() {
        let lyrics = LRC.parse("Some header\n[00:01.00]one\nstray text\n[00:02.00]two\n[Chorus]")
        #expect(lyrics.lines.map(\.text) == ["one", "two"])
        #expect(lyrics.text == nil)
        #expect(lyrics.metadata.isEmpty)
    }

    @Test func stampsAfterTextDoNotCount() {
        let lyrics = LRC.parse("[00:01.00]one [00:02.00] two")
        #expect(lyrics.lines.map(\.text) == ["one [00:02.00] two"])
    }

    @Test func plainTextIsUnsynced() {
        let lyrics = LRC.parse("\u{FEFF}  First line\r\n[Chorus: Singer]\rSecond  line\n\n\n  \n")
        #expect(!lyrics.isSynced)
        #expect(lyrics.lines.isEmpty)
        #expect(lyrics.text == "  First line\n[Chorus: Singer]\nSecond  line")
        #expect(lyrics.metadata.isEmpty)  // bracketed lines in plain lyrics are headings, kept in the text
    }

    @Test(arguments: ["", "\n\n", " \t\r\n", "\u{FEFF}"])
    func nothingIsEmpty(text: String) {
        let lyrics = LRC.parse(text)
        #expect(lyrics.isEmpty)
        #expect(lyrics.text == nil)
        #expect(lyrics.lines.isEmpty)
    }
}
