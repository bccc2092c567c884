import NIOCore

/// Splits the input into lines (without `\n`). A line that does not end within MPD's 8 KiB input buffer ends the
/// connection, as MPD does ("Input buffer is full"), with no answer.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    struct LineTooLong: Error {}

    /// MPD's `StaticFifoBuffer<8192>`: 8191 bytes plus the newline.
    static let maximumLineLength = 8192

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes >= Self.maximumLineLength { throw LineTooLong() }
            return .needMoreData
        }
        let length = newline - view.startIndex
        guard length < Self.maximumLineLength else { throw LineTooLong() }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        // A last line without newline is never executed, as in MPD.
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.clear()
        return .needMoreData
    }
}
