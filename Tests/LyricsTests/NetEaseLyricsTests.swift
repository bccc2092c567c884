import Foundation
import Lyrics
import Testing

/// `NetEaseLyrics`: NetEase's lyrics answers (`Tests/NetEaseSamples`) combined into one `Lyrics`.
@Suite struct NetEaseLyricsTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("NetEaseSamples")

    static func sample(_ name: String) throws -> Data {
        try Data(contentsOf: samples.appendingPathComponent(name))
    }

    static func found(_ lookup: LyricsLookup) throws -> Lyrics {
        guard case .found(let lyrics) = lookup else {
            Issue.record("expected lyrics, got \(lookup)")
            throw CancellationError()
        }
        return lyrics
    }

    @Test func lyricNewSample() throws {
        let lyrics = try Self.found(NetEaseLyrics.lookup(fromJSON: Self.sample("lyric_new.json")))
        // The lines come from yrc (word timings); its JSON credit line comes first.
        #expect(lyrics.lines.map(\.start) == [0, 16_210, 19_670])
        #expect(lyrics.lines.map(\.end) == [nil, 19_670, 22_970])
        #expect(lyrics.lines.map(\.text) == ["作曲: Example Composer", "还没好好的感受", "雪花绽放的气候"])
        #expect(lyrics.lines.map { $0.words?.count } == [nil, 6, 5])
        // ytlrc is empty, so tlyric's lines at 16.21 and 19.67 go to the yrc lines at 16210 and 19670.
        #expect(lyrics.lines.map(\.translation) == [nil, "Haven't yet truly felt", "the season when snowflakes bloom"])
        #expect(lyrics.lines.allSatisfy { $0.romanization == nil })
        #expect(lyrics.metadata == ["translator": "example_translator"])
        #expect(lyrics.text == nil)
    }

    @Test func lyricSample() throws {
        let lyrics = try Self.found(NetEaseLyrics.lookup(fromJSON: Self.sample("lyric.json")))
        #expect(lyrics.lines.map(\.start) == [4_050, 12_570, 16_860, 21_460, 23_960, 50_340, 243_000])
        #expect(lyrics.lines.map(\.text) == ["", "难以忘记初次见你", "一双迷人的眼睛", "在我脑海里", "你的身影 挥散不去",
                                             "只怕我自己会爱上你", ""])
        #expect(lyrics.lines.map(\.end) == [12_570, 16_860, 21_460, 23_960, 50_340, 243_000, nil])
        #expect(lyrics.lines.allSatisfy { $0.words == nil && $0.translation == nil })
        #expect(lyrics.metadata.isEmpty)
    }

    @Test func translationsMatchWithinFiftyMilliseconds() {
        let lyrics = NetEaseLyrics.combine(
            lrc: "[00:01.00]a\n[00:02.00]b\n[00:03.00]c\n[00:04.00]d\n[00:05.00]e",
            translation: """
                [00:01.05]A, 50 ms late
                [00:02.06]B, 60 ms late
                [00:02.97]C, 30 ms early
                [00:02.99]C, 10 ms early
                [00:03.01]C, 10 ms late
                [00:04.00]
                [00:04.96]E, 40 ms early
                """,
            romanization: nil, yrc: nil, yrcTranslation: nil, yrcRomanization: nil)
        #expect(lyrics.lines.map(\.translation) == ["A, 50 ms late", nil, "C, 10 ms early", nil, "E, 40 ms early"])
    }

    @Test func theNearestLineGetsTheTranslation() {
        let lyrics = NetEaseLyrics.combine(
            lrc: nil, translation: "[00:01.03]near the second", romanization: nil,
            yrc: "[1000,40](1000,40,0)first\n[1040,960](1040,960,0)second\n[1070,10](1070,10,0)third",
            yrcTranslation: nil, yrcRomanization: nil)
        #expect(lyrics.lines.map(\.translation) == [nil, "near the second", nil])
    }

    @Test func aTieGoesToTheEarlierLine() {
        // 1020 is 20 ms from both 1000 lines and from the 1040 line: the first of them wins.
        let lyrics = NetEaseLyrics.combine(
            lrc: nil, translation: "[00:01.02]between", romanization: nil,
            yrc: "[1000,20](1000,20,0)one\n[1000,20](1000,20,0)also one\n[1040,20](1040,20,0)two",
            yrcTranslation: nil, yrcRomanization: nil)
        #expect(lyrics.lines.map(\.translation) == ["between", nil, nil])
    }

    @Test func wordLinesPreferTheirOwnTranslationAndRomanization() {
        let lyrics = NetEaseLyrics.combine(
            lrc: "[00:01.00]line", translation: "[by:lrc translator]\n[00:01.00]lrc translation",
            romanization: "[00:01.00]lrc roma",
            yrc: "[1000,500](1000,500,0)line", yrcTranslation: "[by:yrc translator]\n[00:01.00]yrc translation",
            yrcRomanization: "[00:01.00]yrc roma")
        #expect(lyrics.lines.map(\.translation) == ["yrc translation"])
        #expect(lyrics.lines.map(\.romanization) == ["yrc roma"])
        #expect(lyrics.metadata["translator"] == "yrc translator")
    }

    @Test func emptyWordTranslationsFallBackToTheLRCOnes() {
        let lyrics = NetEaseLyrics.combine(
            lrc: "[00:01.00]line", translation: "[00:01.00]lrc translation", romanization: "[00:01.00]lrc roma",
            yrc: "[1000,500](1000,500,0)line", yrcTranslation: "", yrcRomanization: "[by:x]")
        #expect(lyrics.lines.map(\.translation) == ["lrc translation"])
        #expect(lyrics.lines.map(\.romanization) == ["lrc roma"])
    }

    @Test func lrcLinesIgnoreTheWordTranslations() {
        let lyrics = NetEaseLyrics.combine(
            lrc: "[ar:Artist]\n[00:01.00]line", translation: nil, romanization: "[00:01.00]roma",
            yrc: nil, yrcTranslation: "[00:01.00]yrc translation", yrcRomanization: nil)
        #expect(lyrics.lines.map(\.translation) == [nil])
        #expect(lyrics.lines.map(\.romanization) == ["roma"])
        #expect(lyrics.metadata == ["ar": "Artist"])
    }

    @Test func creditLinesAloneDoNotMakeWordLines() {
        let lyrics = NetEaseLyrics.combine(
            lrc: "[00:05.00]from lrc", translation: nil, romanization: nil,
            yrc: #"{"t":0,"c":[{"tx":"credit"}]}"#, yrcTranslation: nil, yrcRomanization: nil)
        #expect(lyrics.lines.map(\.text) == ["from lrc"])
    }

    @Test func untimedLRCIsPlainText() {
        let lyrics = NetEaseLyrics.combine(
            lrc: "纯音乐，请欣赏\n", translation: "[00:01.00]ignored", romanization: nil, yrc: "",
            yrcTranslation: nil, yrcRomanization: nil)
        #expect(lyrics == Lyrics(text: "纯音乐，请欣赏"))
    }

    @Test func nothingIsEmpty() {
        let lyrics = NetEaseLyrics.combine(lrc: nil, translation: nil, romanization: nil, yrc: nil, yrcTranslation: nil,
                                           yrcRomanization: nil)
        #expect(lyrics.lines.isEmpty)
        #expect(lyrics.text == nil)
        #expect(lyrics.isEmpty)
        #expect(NetEaseLyrics.combine(lrc: "", translation: "", romanization: "", yrc: "", yrcTranslation: "",
                                      yrcRomanization: "").isEmpty)
    }

    @Test(arguments: [
        (#"{"nolyric":true,"lrc":{"lyric":"[00:01.00]x"},"code":200}"#, LyricsLookup.instrumental),
        (#"{"uncollected":true,"code":200}"#, .uncollected),
        (#"{"nolyric":true,"uncollected":true}"#, .instrumental),
        (#"{"sgc":false,"lrc":{"version":0,"lyric":""},"tlyric":{"lyric":""},"code":200}"#, .none),
        (#"{"code":404,"msg":"not found"}"#, .none),
        (#"{"lrc":{"lyric":"#, .none),
        ("[]", .none),
        (#""text""#, .none),
        ("", .none),
        ("\u{0}\u{FF}garbage", .none),
    ] as [(String, LyricsLookup)])
    func lookupOutcomes(json: String, expected: LyricsLookup) {
        #expect(NetEaseLyrics.lookup(fromJSON: Data(json.utf8)) == expected)
    }

    @Test func oddFieldsAreIgnored() throws {
        let json = #"{"nolyric":"yes","uncollected":1,"lrc":5,"tlyric":{"lyric":7},"yrc":{"lyric":"[0,100](0,100,0)ok"}}"#
        let lyrics = try Self.found(NetEaseLyrics.lookup(fromJSON: Data(json.utf8)))
        #expect(lyrics.lines.map(\.text) == ["ok"])
    }
}
