import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing
@testable import MPDServer

@Suite struct LineFrameDecoderTests {
    @Test func splitsLinesWhateverTheChunking() throws {
        // The verifier also feeds the input byte by byte and in odd chunks.
        func buffer(_ s: String) -> ByteBuffer { ByteBuffer(string: s) }
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [
                (buffer("status\n"), [buffer("status")]),
                (buffer("ping\r\nrepeat 1\n"), [buffer("ping\r"), buffer("repeat 1")]),
                (buffer("\n"), [buffer("")]),
            ],
            decoderFactory: { LineFrameDecoder() })
    }

    @Test func aLineOverEightKiBEndsTheConnection() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder()))
        var buffer = channel.allocator.buffer(capacity: 9000)
        buffer.writeRepeatingByte(UInt8(ascii: "x"), count: 8192)
        #expect(throws: LineFrameDecoder.LineTooLong.self) { try channel.writeInbound(buffer) }
        _ = try? channel.finish()
    }

    @Test func eightKiBMinusOneIsStillALine() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder()))
        var buffer = channel.allocator.buffer(capacity: 9000)
        buffer.writeRepeatingByte(UInt8(ascii: "x"), count: 8191)
        buffer.writeString("\n")
        try channel.writeInbound(buffer)
        let line = try #require(try channel.readInbound(as: ByteBuffer.self))
        #expect(line.readableBytes == 8191)
        _ = try channel.finish()
    }
}
