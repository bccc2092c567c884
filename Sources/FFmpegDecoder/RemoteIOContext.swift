import CFFmpeg
import CFFmpegShim
import PlayerCore

/// Feeds libavformat from a `RemoteInput` through a custom `AVIOContext`, so network I/O (libcurl, in the NetEase
/// edge) stays out of this module. The seek callback matters: without it an MP4 whose index (`moov`) is at the end
/// cannot be opened, and MP3 loses its length and gapless trim.
final class RemoteIOContext {
    let input: any RemoteInput
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    /// The input's error behind the last failed callback: libavformat only sees `AVERROR(EIO)`, the player should
    /// see what really happened.
    private var failure: DecoderError?

    /// libavformat's own default: reads stay small, so the input's position (which ICY titles follow) stays close
    /// to what has been decoded.
    private static let bufferSize: Int32 = 32 * 1024

    init(_ input: any RemoteInput) throws(DecoderError) {
        self.input = input
        guard let buffer = av_malloc(Int(Self.bufferSize)) else { throw DecoderError("out of memory") }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        context = avio_alloc_context(bytes, Self.bufferSize, 0, opaque, { opaque, buffer, size in
            Unmanaged<RemoteIOContext>.fromOpaque(opaque!).takeUnretainedValue().read(buffer, Int(size))
        }, nil, { opaque, offset, whence in
            Unmanaged<RemoteIOContext>.fromOpaque(opaque!).takeUnretainedValue().seek(offset, whence)
        })
        guard let context else {
            av_free(buffer)
            throw DecoderError("out of memory")
        }
        // A live stream: libavformat must not try to seek (MP3's ID3v1 probe, say).
        if !input.isSeekable { context.pointee.seekable = 0 }
    }

    deinit {
        if let context {
            // libavformat may have replaced the buffer it was given.
            av_free(context.pointee.buffer)
            context.pointee.buffer = nil
        }
        avio_context_free(&context)
        input.close()
    }

    /// The error the input reported since the last call, if any.
    func takeFailure() -> DecoderError? {
        defer { failure = nil }
        return failure
    }

    private func read(_ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int) -> Int32 {
        do {
            let count = try input.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size))
            return count == 0 ? nosignal_averror_eof() : Int32(count)
        } catch {
            failure = error
            return nosignal_averror(EIO)
        }
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 { return input.size ?? Int64(nosignal_averror(ENOSYS)) }
        let target: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = input.position + offset
        case SEEK_END:
            guard let size = input.size else { return Int64(nosignal_averror(ENOSYS)) }
            target = size + offset
        default: return Int64(nosignal_averror(EINVAL))
        }
        do {
            try input.seek(to: target)
            return target
        } catch {
            failure = error
            return Int64(nosignal_averror(EIO))
        }
    }

    /// The name libavformat probes with: the URL without query and fragment, so its extension (`.mp3`) counts.
    static func probeName(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}
