import MPDProtocol
import PlayerCore
import PlayerRuntime

/// `status` with MPD's field names and order (`handle_status` in `src/command/PlayerCommands.cxx`).
enum StatusFormatter {
    /// Reads the state where the store keeps it (`PlayerStore.read(partition:)`), field by field: handed to a
    /// function as a value, the whole state was copied first.
    static func status(of state: UnsafePointer<PartitionState>, progress: PlaybackProgress?, updatingDB: Int?,
                       into response: inout Response) {
        response.reserveCapacity(384) // the whole answer, without growing on the way
        response.writeLines { r in
            let options = state.pointee.options
            if let volume = state.pointee.volume { r.add("volume", volume) }
            r.add("repeat", options.repeat ? 1 : 0)
            r.add("random", options.random ? 1 : 0)
            r.add("single", options.single.rawValue)
            r.add("consume", options.consume.rawValue)
            r.add("partition", state.pointee.name)
            r.add("playlist", Int(state.pointee.queue.version))
            r.add("playlistlength", state.pointee.queue.count)
            // Usually 0 (MPD's default): printed without making a `String` of the float.
            if options.mixrampDB == 0, options.mixrampDB.sign == .plus {
                r.add("mixrampdb", 0)
            } else {
                r.add("mixrampdb", formatFloat(options.mixrampDB))
            }
            let playState = state.pointee.player.state
            r.add("state", playState.rawValue)
            r.add("lastloadedplaylist", state.pointee.lastLoadedPlaylist ?? "")
            if options.crossfade > 0 { r.add("xfade", Int(saturating: options.crossfade.rounded())) }
            // MPD keeps the delay as a `double` (`FloatDuration`) made from the parsed float: `0.1` prints as
            // `0.10000000149011612`.
            if options.mixrampDelay > 0 { r.add("mixrampdelay", formatFloat(Double(options.mixrampDelay))) }
            let currentPosition = state.pointee.currentPosition
            if let position = currentPosition {
                r.add("song", position)
                r.add("songid", state.pointee.queue.items[position].id)
            }
            if playState != .stop {
                // Between a command and the engine's first report the song's own facts stand in.
                let current = currentPosition.map { state.pointee.queue.items[$0] }
                let progress = progress.flatMap { $0.id == current?.id ? $0 : nil }
                let elapsed = progress?.elapsed ?? 0
                let duration = progress?.duration ?? current.flatMap { item in
                    item.range.map { ($0.end ?? item.song.duration ?? 0) - $0.start } ?? item.song.duration
                }
                r.add("time", "\(Int(saturating: elapsed.rounded())):\(duration.map { Int(saturating: $0.rounded()) } ?? 0)")
                r.addThousandths("elapsed", SongFormatter.thousandths(elapsed))
                r.add("bitrate", progress?.bitrate ?? 0)
                if let duration { r.addThousandths("duration", SongFormatter.thousandths(duration)) }
                if let format = progress?.format { r.add("audio", format.description) }
            }
            if let updatingDB { r.add("updating_db", updatingDB) }
            // MPD 0.24 prints the player's error through `GetFullMessage`, which tidies its blanks.
            if let error = state.pointee.player.error { r.add("error", MessageText.sanitized(error)) }
            if let next = state.pointee.nextPosition {
                r.add("nextsong", next)
                r.add("nextsongid", state.pointee.queue.items[next].id)
            }
        }
    }

    /// Formats like libfmt's `{}` for floats: the shortest text that reads back the same value, with no
    /// trailing `.0` on whole numbers (`0`, `-17.5`, `1e+10`, `inf`). NaN prints as `inf`: that is what MPD 0.23.12
    /// as Debian builds it answers after `mixrampdb nan` (its float checks are compiled without NaN support).
    static func formatFloat<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String {
        if value.isNaN { return "inf" }
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
        r.writeLines { write(item, position: position, mask: mask, into: &$0) }
    }

    static func write(_ item: Queue.Item, position: Int, mask: TagMask, into r: inout Lines) {
        write(item.song, range: item.range, mask: mask, into: &r)
        r.add("Pos", position)
        r.add("Id", item.id)
        if item.priority != 0 { r.add("Prio", Int(item.priority)) }
    }

    static func write(_ song: Song, range: Queue.ClosedRangeSeconds? = nil, mask: TagMask, into r: inout Response) {
        r.writeLines { write(song, range: range, mask: mask, into: &$0) }
    }

    /// Numbers and times are written straight into the response's bytes (no `String` per line): a 10,000-song
    /// `playlistinfo` is about 100,000 lines.
    static func write(_ song: Song, range: Queue.ClosedRangeSeconds? = nil, mask: TagMask, into r: inout Lines) {
        r.add("file", song.uri)
        // A queue item's sub-range (`rangeid`); `Time`/`duration` then describe the range (`GetDuration`).
        var duration = song.duration
        if let range {
            r.addThousandthsRange("Range", thousandths(range.start), range.end.map(thousandths))
            if let end = range.end { duration = end - range.start }
            else if let whole = duration { duration = whole - range.start }
        }
        if let modified = song.lastModified { r.addTime("Last-Modified", unix: modified) }
        if let added = song.added { r.addTime("Added", unix: added) }
        if let format = song.audioFormat { r.add("Format", format) }
        song.packedTags.forEach { name, value in
            // Stored names are the canonical spellings, printed as they are; any other spelling is printed canonical.
            if let tag = TagName(canonicalUTF8: name) {
                if mask.contains(tag) { r.add(utf8Key: name, utf8: value) }
            } else if let tag = TagName(parsing: String(decoding: name, as: UTF8.self)), mask.contains(tag) {
                Lines.withUTF8(tag.mpdName) { r.add(utf8Key: $0, utf8: value) }
            }
        }
        // `song_print_info`: no times when the range ends before it starts (`GetDuration` is negative).
        if let duration, duration >= 0 {
            r.add("Time", Int(saturating: duration.rounded()))
            r.addThousandths("duration", thousandths(duration))
        }
    }

    /// Seconds as whole thousandths, rounded as `%1.3f` rounds them.
    static func thousandths(_ seconds: Double) -> Int64 { Int64(saturating: (seconds * 1000).rounded()) }
}
