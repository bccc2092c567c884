import Testing
@testable import FFmpegDecoder
import PlayerCore

/// The ID3v2 text-frame reader that gives every value of a frame (libavformat keeps the first).
@Suite struct ID3TextFramesTests {
    func frame(_ id: String, _ content: [UInt8], version: UInt8) -> [UInt8] {
        let size = content.count
        let sizeBytes: [UInt8] = version == 4
            ? [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)]
            : [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        return Array(id.utf8) + sizeBytes + [0, 0] + content
    }

    @Test func nulSeparatedValuesInEveryEncoding() {
        let utf8 = frame("TPE1", [3] + Array("One\0Two\0".utf8), version: 4)
        let latin1 = frame("TCOM", [0, 0x42, 0xE9, 0, 0x43], version: 4)
        let utf16 = frame("TIT2", [1, 0xFF, 0xFE, 0x41, 0, 0, 0, 0xFF, 0xFE, 0x42, 0], version: 4)
        let utf16be = frame("TALB", [2, 0, 0x58, 0, 0, 0, 0x59], version: 4)
        let frames = ID3TextFrames.parse(version: 4, flags: 0, body: utf8 + latin1 + utf16 + utf16be + [0, 0, 0, 0])
        #expect(frames["TPE1"] == ["One", "Two"])
        #expect(frames["TCOM"] == ["Bé", "C"])
        #expect(frames["TIT2"] == ["A", "B"])
        #expect(frames["TALB"] == ["X", "Y"])
    }

    @Test func version3SizesAndUnsynchronisation() {
        let tpe1 = frame("TPE1", [3] + Array("Ä".utf8), version: 3)  // Ä is C3 84: no FF to stuff
        // v2.3 unsynchronises the whole tag after the frames are built: sizes count the bytes before the stuffing.
        let plain = frame("TIT2", [0, 0xFF, 0x41], version: 3)
        var stuffed: [UInt8] = []
        for byte in plain { stuffed.append(byte); if byte == 0xFF { stuffed.append(0) } }
        let frames = ID3TextFrames.parse(version: 3, flags: 0x80, body: tpe1 + stuffed)
        #expect(frames["TPE1"] == ["Ä"])
        #expect(frames["TIT2"] == ["ÿA"])
        // A frame that claims more bytes than the tag holds ends the reading, without a crash.
        #expect(ID3TextFrames.parse(version: 4, flags: 0, body: Array("TPE1".utf8) + [0, 0, 0x7F, 0x7F, 0, 0]).isEmpty)
    }
}
