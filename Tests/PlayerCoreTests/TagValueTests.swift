import Testing
import PlayerCore

/// Tag values as MPD keeps them (`src/tag/FixString.cxx`).
@Suite struct TagValueTests {
    @Test func controlCharactersBecomeSpaces() {
        #expect(Song.Tag("Title", "Tab\there").value == "Tab here")
        #expect(Song.Tag("Artist", "Line\nbreak\r\u{1B}\u{0}").value == "Line break   ")
        // DEL and everything from U+0020 on stay, as in MPD.
        #expect(Song.Tag("Title", "a\u{7F}b 夜").value == "a\u{7F}b 夜")
    }

    @Test(arguments: [
        ([0x41, 0xFF, 0x42], "A?B"),
        ([0x42, 0x61, 0x64, 0xC3], "Bad?"),  // a sequence cut short at the end
        ([0xC3, 0x41], "?A"),  // a lead byte without its continuation
        ([0x80, 0x80], "??"),  // continuation bytes with no lead
        ([0xE2, 0x82, 0xAC, 0xFE], "€?"),
        ([0xC3, 0xA9], "é"),
    ] as [([UInt8], String)])
    func invalidUTF8BecomesQuestionMarks(bytes: [UInt8], text: String) {
        #expect(Song.Tag.text(bytes) == text)
    }
}
