/// Separates a Shoutcast/Icecast stream sent with `icy-metaint: N` into audio and metadata. After every N audio
/// bytes the server inserts one length byte L and L × 16 bytes of text (`StreamTitle='…';StreamUrl='…';`, padded
/// with NULs); L = 0 means "nothing new". The decoder must see only the audio.
struct IcyMetadataParser {
    let interval: Int
    private var audioLeft: Int
    /// Bytes of the current metadata block still to come; with `audioLeft` 0 as well, the next byte is a length.
    private var metadataLeft = 0
    private var block: [UInt8] = []

    init(interval: Int) {
        self.interval = interval
        audioLeft = interval
    }

    /// Passes each run of audio bytes to `audio` and the `StreamTitle` of each complete block to `title`.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) -> Void,
                       title: (String) -> Void) {
        var index = 0
        while index < bytes.count {
            if audioLeft > 0 {
                let run = min(audioLeft, bytes.count - index)
                audio(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + run)]))
                index += run
                audioLeft -= run
            } else if metadataLeft == 0 {
                metadataLeft = Int(bytes[index]) * 16
                index += 1
                block.removeAll(keepingCapacity: true)
                if metadataLeft == 0 { audioLeft = interval }
            } else {
                let run = min(metadataLeft, bytes.count - index)
                block.append(contentsOf: bytes[index..<(index + run)])
                index += run
                metadataLeft -= run
                if metadataLeft == 0 {
                    audioLeft = interval
                    if let found = Self.streamTitle(in: block) { title(found) }
                }
            }
        }
    }

    /// The value of `StreamTitle='…'`. It ends at the first `';` — a lone quote belongs to the title
    /// (`Don't Stop`) — or, without one, at the end of the block less a closing quote. Text that is not UTF-8 is
    /// read as Latin-1, what older Shoutcast servers send.
    static func streamTitle(in block: [UInt8]) -> String? {
        var end = block.count
        while end > 0, block[end - 1] == 0 { end -= 1 }
        let text = block[..<end]
        let key = Array("StreamTitle='".utf8)
        guard let start = text.firstRange(of: key)?.upperBound else { return nil }
        var stop = text.endIndex
        if let close = text[start...].firstRange(of: Array("';".utf8)) {
            stop = close.lowerBound
        } else if stop > start, text[stop - 1] == UInt8(ascii: "'") {
            stop -= 1
        }
        let value = Array(text[start..<max(start, stop)])
        if let utf8 = String(validating: value, as: UTF8.self) { return utf8 }
        return String(value.map { Character(Unicode.Scalar($0)) })
    }
}
