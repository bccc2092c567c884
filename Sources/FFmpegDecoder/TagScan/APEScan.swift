import PlayerCore

/// APEv2 tags read as MPD reads them (`tag_ape_scan`, `src/tag/ApeLoader.cxx`; `tag_ape_scan2`, `ApeTag.cxx`):
/// only a tag whose footer ends the file (an ID3v1 tag after it hides it), version 2000, at most 1 MiB; its text
/// items in the file's order, each value split at NUL bytes (every part a pair and, for a known name, a tag).
enum APEScan {
    struct Item {
        var flags: UInt32
        var key: [UInt8]
        var value: ArraySlice<UInt8>
    }

    /// The items, or nil without a tag.
    static func items(_ file: TagFile) -> [Item]? {
        guard file.size >= 32, let footer = file.read(at: file.size - 32, count: 32),
              footer[0..<8].elementsEqual("APETAGEX".utf8), footer.littleEndian32(at: 8) == 2000 else { return nil }
        let length = Int(footer.littleEndian32(at: 12))
        guard length > 32 + 10, length <= 1024 * 1024, UInt64(length) <= file.size,
              let buffer = file.read(at: file.size - UInt64(length), count: length - 32) else { return nil }
        var count = footer.littleEndian32(at: 16)
        var items: [Item] = []
        var index = 0
        var remaining = buffer.count
        while count > 0, remaining > 10 {
            count -= 1
            let size = Int(buffer.littleEndian32(at: index))
            let flags = buffer.littleEndian32(at: index + 4)
            index += 8
            remaining -= 8
            guard let keyEnd = buffer[index..<(index + remaining)].firstIndex(of: 0) else { break }
            let key = Array(buffer[index..<keyEnd])
            remaining -= keyEnd + 1 - index
            index = keyEnd + 1
            guard remaining >= size else { break }
            items.append(Item(flags: flags, key: key, value: buffer[index..<(index + size)]))
            index += size
            remaining -= size
        }
        return items
    }

    /// `tag_ape_name_parse`: `Album Artist` and `Year` by MPD's APE table, else MPD's own tag names, both
    /// case-insensitively.
    static func tagName(_ key: [UInt8]) -> String? {
        let lower = String(decoding: key, as: UTF8.self).lowercased()
        switch lower {
        case "album artist": return "AlbumArtist"
        case "year": return "Date"
        default: return TagNames.byLowercase[lower]
        }
    }

    /// `tag_ape_scan2`: true when the file has a tag and one of its items was a text item with a known name.
    @discardableResult
    static func scan(_ file: TagFile, into result: inout TagScanResult) -> Bool {
        guard let items = items(file) else { return false }
        var recognized = false
        for item in items where item.flags & (0x3 << 1) == 0 {
            let parts = item.value.split(separator: 0, omittingEmptySubsequences: false)
            for part in parts { result.pair(item.key, part) }
            guard let name = tagName(item.key) else { continue }
            for part in parts { result.tag(name, part) }
            recognized = true
        }
        return recognized
    }
}
