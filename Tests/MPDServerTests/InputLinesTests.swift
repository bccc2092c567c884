import NIOCore
import Testing
@testable import MPDServer

@Suite struct InputLinesTests {
    /// Lines come out whole however the input was cut into reads; a partial line waits for the rest.
    @Test func splitsLinesWhateverTheChunking() throws {
        let text = Array("status\nping\r\nrepeat 1\n\nlast without newline".utf8)
        let expected = ["status", "ping\r", "repeat 1", ""].map { Array($0.utf8) }
        for size in [1, 2, 3, 5, 7, 13, text.count] {
            var input = InputLines()
            var lines: [[UInt8]] = []
            for start in stride(from: 0, to: text.count, by: size) {
                var chunk = ByteBuffer(bytes: text[start..<min(start + size, text.count)])
                input.append(&chunk)
                while let line = try input.next() { lines.append(Array(line.readableBytesView)) }
            }
            #expect(lines == expected, "chunks of \(size)")
            #expect(!input.hasLine)
        }
    }

    @Test func aLineOverEightKiBEndsTheConnection() throws {
        var input = InputLines()
        var buffer = ByteBuffer(repeating: UInt8(ascii: "x"), count: 8191)
        input.append(&buffer)
        #expect(try input.next() == nil)
        var one = ByteBuffer(string: "x")
        input.append(&one)
        #expect(throws: InputLines.LineTooLong.self) { try input.next() }
        var tooLong = InputLines()
        var complete = ByteBuffer(repeating: UInt8(ascii: "x"), count: 8192)
        complete.writeString("\n")
        tooLong.append(&complete)
        #expect(throws: InputLines.LineTooLong.self) { try tooLong.next() }
    }

    @Test func eightKiBMinusOneIsStillALine() throws {
        var input = InputLines()
        var buffer = ByteBuffer(repeating: UInt8(ascii: "x"), count: 8191)
        buffer.writeString("\nping\n")
        input.append(&buffer)
        #expect(try input.next()?.readableBytes == 8191)
        #expect(try input.next().map { Array($0.readableBytesView) } == Array("ping".utf8))
        #expect(try input.next() == nil)
    }
}
