import MPDProtocol
import PlayerCore

/// `status` with MPD's field names and order (`handle_status` in `src/command/PlayerCommands.cxx`).
enum StatusFormatter {
    static func status(of p: PartitionState) -> Response {
        var r = Response()
        if let volume = p.volume { r.add("volume", volume) }
        r.add("repeat", p.options.repeat ? 1 : 0)
        r.add("random", p.options.random ? 1 : 0)
        r.add("single", p.options.single.rawValue)
        r.add("consume", p.options.consume.rawValue)
        r.add("partition", p.name)
        r.add("playlist", p.queue.version)
        r.add("playlistlength", p.queue.count)
        r.add("mixrampdb", formatFloat(p.options.mixrampDB))
        r.add("state", p.player.state.rawValue)
        if p.options.crossfade > 0 { r.add("xfade", Int(p.options.crossfade.rounded())) }
        if p.options.mixrampDelay > 0 { r.add("mixrampdelay", formatFloat(p.options.mixrampDelay)) }
        if let position = p.currentPosition {
            r.add("song", position)
            r.add("songid", p.queue.items[position].id)
        }
        if let error = p.player.error { r.add("error", error) }
        return r
    }

    /// Formats like libfmt's `{}` for floats: the shortest text that reads back the same value, with no
    /// trailing `.0` on whole numbers (`0`, `-17.5`, `1e+10`, `nan`, `inf`).
    static func formatFloat(_ value: Float) -> String {
        if value.isNaN { return value.sign == .minus ? "-nan" : "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}

/// A song block (`src/SongPrint.cxx`): `file:` first, then the tags the client's mask allows, then time fields
/// and the queue fields.
enum SongFormatter {
    static func write(_ item: Queue.Item, position: Int, mask: TagMask, into r: inout Response) {
        write(item.song, mask: mask, into: &r)
        r.add("Pos", position)
        r.add("Id", item.id)
        if item.priority != 0 { r.add("Prio", item.priority) }
    }

    static func write(_ song: Song, mask: TagMask, into r: inout Response) {
        r.add("file", song.uri)
        if let format = song.audioFormat { r.add("Format", format) }
        for tag in song.tags {
            guard let name = TagName(parsing: tag.name), mask.contains(name) else { continue }
            r.add(name.mpdName, tag.value)
        }
        if let duration = song.duration {
            r.add("Time", Int(duration.rounded()))
            r.add("duration", formatSeconds(duration))
        }
    }

    /// `%1.3f`, as MPD prints `duration` and `elapsed`.
    static func formatSeconds(_ seconds: Double) -> String {
        let millis = Int64((seconds * 1000).rounded())
        let whole = millis / 1000
        let fraction = millis % 1000
        let padded = String(fraction).count == 1 ? "00\(fraction)" : String(fraction).count == 2 ? "0\(fraction)" : "\(fraction)"
        return "\(whole).\(padded)"
    }
}
