import Lyrics
import Testing

/// `YRC.parse`: NetEase's word-level lines and credit lines.
@Suite struct YRCTests {
    /// The `yrc.lyric` of `Tests/NetEaseSamples/lyric_new.json`.
    static let sample = """
        {"t":0,"c":[{"tx":"作曲: "},{"tx":"Example Composer"}]}
        [16210,3460](16210,670,0)还(16880,410,0)没(17290,500,0)好(17790,400,0)好(18190,480,0)的(18670,1000,0)感受
        [19670,3300](19670,500,0)雪(20170,500,0)花(20670,600,0)绽(21270,600,0)放(21870,1100,0)的气候

        """

    @Test func sampleLines() throws {
        let lines = YRC.parse(Self.sample)
        #expect(lines.map(\.start) == [0, 16_210, 19_670])
        #expect(lines.map(\.end) == [nil, 19_670, 22_970])
        #expect(lines.map(\.text) == ["作曲: Example Composer", "还没好好的感受", "雪花绽放的气候"])
        #expect(lines[0].words == nil)
        let words = try #require(lines[1].words)
        #expect(words.map(\.text) == ["还", "没", "好", "好", "的", "感受"])
        #expect(words.map(\.start) == [16_210, 16_880, 17_290, 17_790, 18_190, 18_670])
        #expect(words.map(\.duration) == [670, 410, 500, 400, 480, 1_000])
        #expect(lines[2].words?.last == Lyrics.Word(start: 21_870, duration: 1_100, text: "的气候"))
    }

    @Test func creditLines() {
        let lines = YRC.parse("""
            {"t":1000,"c":[{"tx":"作词: ","li":"http://example.com/a.jpg"},{"tx":"Writer","or":"orpheus://x"}]}
            {"t":2000,"c":[{"tx":"  "}]}
            {"t":3000,"c":[{"tx":"Producer"}]}
            {"t":-5,"c":[{"tx":"negative"}]}
            {"t":1e30,"c":[{"tx":"huge"}]}
            {"t":4000}
            {"t":"5000","c":[{"tx":"string time"}]}
            {"t":6000,"c":[{"tx":"broken"
            """)
        #expect(lines.map(\.start) == [1_000, 3_000])
        #expect(lines.map(\.text) == ["作词: Writer", "Producer"])
        #expect(lines.allSatisfy { $0.end == nil && $0.words == nil })
    }

    @Test func englishWordsKeepTheirSpaces() throws {
        let line = try #require(YRC.parse("[1000,2000](1000,500,0)Hello (1500,500,0)there (2000,1000,0)world ").first)
        #expect(line.text == "Hello there world")
        #expect(line.words?.map(\.text) == ["Hello ", "there ", "world"])
    }

    @Test func parenthesesThatAreNotStampsAreText() throws {
        let line = try #require(YRC.parse("[0,3000](0,1000,0)(feat. (1000,1000,0)Someone) (x,1,0)(2000,1000,0)end").first)
        #expect(line.words?.map(\.text) == ["(feat. ", "Someone) (x,1,0)", "end"])
        #expect(line.words?.map(\.start) == [0, 1_000, 2_000])
    }

    @Test func textBeforeTheFirstStampStartsWithTheLine() throws {
        let line = try #require(YRC.parse("[1000,3000]Oh (1500,500,0)yeah").first)
        #expect(line.words == [
            Lyrics.Word(start: 1_000, duration: 500, text: "Oh "),
            Lyrics.Word(start: 1_500, duration: 500, text: "yeah"),
        ])
    }

    @Test func emptyWordsAreDropped() throws {
        let line = try #require(YRC.parse("[1000,3000](1000,500,0)(1500,500,0)a(2000,500,0) ").first)
        #expect(line.words == [Lyrics.Word(start: 1_500, duration: 500, text: "a")])
    }

    @Test func aLineWithoutWords() {
        let lines = YRC.parse("[1000,2000]\n[4000,1000]plain")
        #expect(lines == [
            Lyrics.Line(start: 1_000, end: 3_000, text: ""),
            Lyrics.Line(start: 4_000, end: 5_000, text: "plain"),
        ])
    }

    @Test func endIsCappedAtTheLargestTime() {
        let lines = YRC.parse("[2147483000,1000](2147483000,1000,0)last")
        #expect(lines.map(\.end) == [Lyrics.maximumTime])
        #expect(lines.first?.words?.first?.duration == 1_000)
    }

    @Test func unreadableLinesAreSkipped() {
        let lines = YRC.parse("""
            plain text
            [abc,100](0,1,0)x
            [100](100,1,0)x
            [100,200,300](100,1,0)x
            [99999999999999999999999,100](0,1,0)x
            [100,99999999999999999999](0,1,0)x
            [1,2
            [5000,100](5000,100,0)kept(99999999999999999999,1,0)huge
            """)
        #expect(lines.map(\.start) == [5_000])
        #expect(lines.first?.words?.map(\.text) == ["kept(99999999999999999999,1,0)huge"])
    }

    @Test func linesAreSortedStably() {
        let lines = YRC.parse("""
            [3000,100](3000,100,0)c
            {"t":0,"c":[{"tx":"credit"}]}
            [1000,100](1000,100,0)a1
            [1000,100](1000,100,0)a2
            """)
        #expect(lines.map(\.text) == ["credit", "a1", "a2", "c"])
    }

    @Test func lineEndsAccepted() {
        let lines = YRC.parse("\u{FEFF}[0,100](0,100,0)a\r\n[100,100](100,100,0)b\r[200,100](200,100,0)c")
        #expect(lines.map(\.text) == ["a", "b", "c"])
    }
}
