import Foundation
import Lyrics
import Testing

/// Every parser returns, whatever it is given, and what it returns keeps the model's promises.
@Suite struct LyricsRobustnessTests {
    static let adversarial = [
        "[99999999999999999999:99.99]x", "[00:99999999999999999999.5]x", "[9223372036854775807:00]x",
        "[00:00.99999999999999999999999999]x", "[00:1", "[00:01.00", "<00:01.00", "[00:01.00]<00:01.00",
        "[00:01.00]<<<<<<>>>>>", "[,](", "((((", "))))", "[[[[[[", "]]]]]", "<><><>", "{{{{", "}}}}", "[:]", "[::]",
        "[offset:]", "[offset:-]", "[offset:+-5]", "[offset:9223372036854775808]\n[00:01.00]x",
        "[offset:-9223372036854775808]\n[00:01.00]x", "[00:01.00][00:01.00][00:01.00]x\n[00:01.00]y",
        "[0,0]", "[,]", "[-1,5](0,1,0)x", "[1,2](", "[1,2](1,2,", "[1,2](1,2,3", "[1,2](1,2,3)",
        "[99999999999999999999,99999999999999999999](99999999999999999999,99999999999999999999,99999999999999999999)x",
        "[2147483647,2147483647](2147483647,2147483647,0)x", "{\"t\":", "{\"t\":1,\"c\":[{\"tx\":\"\\ud800\"}]}",
        "{\"t\":99999999999999999999999,\"c\":[]}", "{\"t\":1.5,\"c\":[{\"tx\":\"a\"}]}", "{}", "{\"c\":null}",
        "\u{FEFF}", "\u{FEFF}\u{FEFF}[00:01.00]x", "\r\r\n\n\r", "[\u{301}00:01.00]x", "[00:01.00]\u{301}x",
        "[00\u{301}:01.00]x", "<\u{301}00:01.00>", "[00:01.00]👩‍👩‍👧<00:01.50>‍", "\u{0}[00:01.00]\u{0}",
        String(repeating: "[00:01.00]", count: 500), String(repeating: "<00:01.00>", count: 500),
        String(repeating: "(0,1,0)", count: 500), "[0,1]" + String(repeating: "(0,1,0)(", count: 500),
    ]

    @Test func adversarialInputs() {
        for text in Self.adversarial {
            exercise(text)
        }
    }

    @Test func randomInputs() {
        var random = SplitMix64(seed: 0x4C59_5249_4353)
        for _ in 0..<3_000 {
            exercise(random.lyricsLikeText())
        }
    }

    @Test func randomBytesAsJSON() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<1_000 {
            let bytes = (0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = NetEaseLyrics.lookup(fromJSON: Data(bytes))
            _ = NetEaseLyrics.lookup(fromJSON: Data(("{\"lrc\":{\"lyric\":\"" + String(decoding: bytes, as: UTF8.self)).utf8))
        }
    }

    @Test(.timeLimit(.minutes(1))) func hugeInputsStayLinear() {
        let size = 100_000
        for text in [
            "[00:01.00]" + String(repeating: "<", count: size),
            "[00:01.00]" + String(repeating: "<0", count: size),
            String(repeating: "[", count: size),
            "[0,1]" + String(repeating: "(", count: size),
            "[0,1]" + String(repeating: "(1,", count: size),
            "[00:01.00]" + String(repeating: "<00:01.00> ", count: size),
            "[0,1]" + String(repeating: "(0,1,0) ", count: size),
            String(repeating: "[00:01.00]x\n", count: size / 10),
        ] {
            _ = LRC.parse(text)
            _ = YRC.parse(text)
        }
        let manyLines = String(repeating: "[00:01.00]x\n", count: size / 10)
        let sameStart = NetEaseLyrics.combine(lrc: manyLines, translation: manyLines, romanization: nil, yrc: nil,
                                              yrcTranslation: nil, yrcRomanization: nil)
        #expect(sameStart.lines.count == size / 10 / 2)  // each second line is the first one's translation
    }

    /// Runs `text` through every parser and renderer and checks the invariants of what comes back.
    private func exercise(_ text: String) {
        let lyrics = LRC.parse(text)
        expectInvariants(lyrics, text)
        for line in lyrics.lines {
            #expect(line.end.map { $0 > line.start } ?? true, "\(text.debugDescription)")
        }
        expectInvariants(LRC.parse(lyrics.lrc()), text)
        _ = lyrics.plainText()
        for time in [-1, 0, 1_000, Lyrics.maximumTime, Int.max, Int.min] {
            if let index = lyrics.lineIndex(at: time) {
                #expect(lyrics.lines[index].start <= time)
            }
        }
        let lines = YRC.parse(text)
        expectInvariants(Lyrics(lines: lines), text)
        _ = Lyrics(lines: lines).lrc()
        let combined = NetEaseLyrics.combine(lrc: text, translation: text, romanization: text, yrc: text,
                                             yrcTranslation: text, yrcRomanization: text)
        expectInvariants(combined, text)
        _ = NetEaseLyrics.lookup(fromJSON: Data(text.utf8))
        let fields = ["lrc", "tlyric", "romalrc", "yrc", "ytlrc", "yromalrc"].map { ($0, ["lyric": text]) }
        if let json = try? JSONSerialization.data(withJSONObject: Dictionary(uniqueKeysWithValues: fields)) {
            _ = NetEaseLyrics.lookup(fromJSON: json)
        }
    }

    private func expectInvariants(_ lyrics: Lyrics, _ text: String) {
        let starts = lyrics.lines.map(\.start)
        #expect(starts == starts.sorted(), "\(text.debugDescription)")
        #expect(starts.allSatisfy { (0...Lyrics.maximumTime).contains($0) }, "\(text.debugDescription)")
        #expect(lyrics.lines.allSatisfy { ($0.end ?? 0) <= Lyrics.maximumTime }, "\(text.debugDescription)")
        #expect(lyrics.lines.isEmpty || lyrics.text == nil, "\(text.debugDescription)")
        #expect(lyrics.text.map { !$0.isEmpty } ?? true, "\(text.debugDescription)")
        for word in lyrics.lines.flatMap({ $0.words ?? [] }) {
            #expect((0...Lyrics.maximumTime).contains(word.start), "\(text.debugDescription)")
            #expect(word.duration.map { $0 >= 0 } ?? true, "\(text.debugDescription)")
        }
    }
}

/// A small deterministic generator (SplitMix64), so that a failure can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// Pieces of every format in random order and number, with random characters between them.
    mutating func lyricsLikeText() -> String {
        let pieces = ["[", "]", "<", ">", "(", ")", "{", "}", ":", ".", ",", "-", "+", " ", "\t", "\n", "\r", "\r\n",
                      "0", "1", "5", "9", "00", "59", "99", "999999999999", "99999999999999999999", "[00:01.00]",
                      "[01:02.345]", "<00:01.50>", "[1000,500]", "(1000,200,0)", "{\"t\":0,\"c\":[{\"tx\":\"a\"}]}",
                      "[ar:", "[offset:", "-500]", "ti", "\"tx\":", "\u{FEFF}", "\u{301}", "é", "漢字", "👩‍👩‍👧", "\u{0}"]
        var text = ""
        for _ in 0..<below(40) {
            if below(8) == 0 {
                text.unicodeScalars.append(Unicode.Scalar(UInt32(below(0xD800))) ?? " ")
            } else {
                text += pieces[below(pieces.count)]
            }
        }
        return text
    }
}
