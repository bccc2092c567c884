/// Opens remote inputs (`http://`, `https://`, `ftp://`, … : `opens`) as byte streams. Implemented over libcurl by the NetEase edge
/// (the one HTTP stack of the server); the decoder edge receives it by injection, so the two C-library edges never
/// import each other and a decoder can be tested against a fake input.
public protocol RemoteInputFactory: Sendable {
    /// Connects and waits for the response headers, so a bad URL, a refused connection, a timeout or an HTTP error
    /// status fail here, with a `DecoderError` that names the URL — before any decoder is set up. Blocking: call it
    /// on the decoder thread.
    func open(_ url: String) throws(DecoderError) -> any RemoteInput
    /// Whether `open` takes this URL (its scheme is one the input reads, `http`, `ftp`, …); a URL it does not take
    /// is left to the decoder's own network protocols (RTSP, HLS through libavformat).
    func opens(_ url: String) -> Bool
}

extension RemoteInputFactory {
    /// `http://` and `https://`.
    public func opens(_ url: String) -> Bool {
        let lower = url.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}

/// One open remote resource, read like a file by a demuxer. The network side buffers ahead on its own thread
/// (bounded), so `read` only waits when the network is slower than the decoder. Used from one thread at a time
/// (the decoder thread), hence not `Sendable`.
public protocol RemoteInput: AnyObject {
    /// The whole resource's length in bytes, when the server said (`Content-Length`); nil for live streams. A
    /// demuxer asks for it to find trailing indexes (an MP4 `moov` at the end, an MP3's ID3v1 tag).
    var size: Int64? { get }
    /// The response's `Content-Type`, a hint for probing the container.
    var mimeType: String? { get }
    /// Whether `seek` can reposition: a resource of known length (seeking issues an HTTP range request). Live
    /// streams (internet radio) cannot seek.
    var isSeekable: Bool { get }
    /// The offset of the next byte `read` returns.
    var position: Int64 { get }
    /// Copies up to `buffer.count` bytes of the resource (never the ICY metadata interleaved in a radio stream)
    /// and returns how many; 0 only at the end. Blocks until at least one byte, the end or an error. A dropped
    /// connection on a seekable resource is resumed where it broke; on a live stream it is the end (as in MPD).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int
    /// Moves to byte `offset` (the next `read` continues from there). Throws when the input is not seekable.
    func seek(to offset: Int64) throws(DecoderError)
    /// Tags announced by the stream up to the bytes read so far: the station (`Name`, from `icy-name`) on the first
    /// call, then each new ICY `StreamTitle` as `Title`. Nil when nothing is new. Tied to the read position rather
    /// than to the network, so a title changes when its audio is decoded, not when it was buffered.
    func takeMetadata() -> [Song.Tag]?
    /// Stops the transfer and releases the connection at once (also done when the input is released).
    func close()
}
