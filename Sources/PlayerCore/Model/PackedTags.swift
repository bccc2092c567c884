/// A song's tags in one byte buffer, in their order: for each tag the name's UTF-8 length (LEB128) and bytes, then
/// the value's. One allocation per song instead of an array and a string per value: the database stores songs in
/// this form (`song.tags`), so loading a song copies its bytes, the queue holds them as they are, and printing a
/// song reads names and values in place (`forEach`). `Song.tags` decodes them for everything else.
public struct PackedTags: Equatable, Sendable {
    public private(set) var bytes: [UInt8]

    public init(_ tags: [Song.Tag] = []) {
        var bytes: [UInt8] = []
        for tag in tags { Self.append(tag.name.utf8, tag.value.utf8, to: &bytes) }
        self.bytes = bytes
    }

    /// Bytes in this form, as stored. Damaged bytes are read up to the damage (`forEach`).
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isEmpty: Bool { bytes.isEmpty }

    /// Appends one tag in this form. Inlinable, so that callers in other modules get it specialised for their
    /// collections (unspecialised, each byte went through a witness table: 3% of an update).
    @inlinable
    public static func append(_ name: some Collection<UInt8>, _ value: some Collection<UInt8>,
                              to bytes: inout [UInt8]) {
        appendLength(name.count, to: &bytes)
        bytes.append(contentsOf: name)
        appendLength(value.count, to: &bytes)
        bytes.append(contentsOf: value)
    }

    /// Appends a length as LEB128, this form's lengths (also `FolderSongs`' in the library).
    @inlinable
    public static func appendLength(_ count: Int, to bytes: inout [UInt8]) {
        var length = count
        while length >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: length) | 0x80)
            length >>= 7
        }
        bytes.append(UInt8(length))
    }

    /// Each tag's name and value bytes, in order; stops where the bytes are damaged (a length past the end).
    /// Inlinable: filters and formatters in other modules run it per song.
    @inlinable
    public func forEach(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { all in
            var index = 0
            while index < all.count {
                guard let name = Self.field(all, &index), let value = Self.field(all, &index) else { return }
                try body(name, value)
            }
        }
    }

    /// The field (a name or a value) at `index` of packed bytes, moving `index` past it; nil where the bytes are
    /// damaged. For loops that must not go through a closure per tag (`SongMatcher`).
    @inlinable
    public static func field(_ all: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> UnsafeBufferPointer<UInt8>? {
        // Names and almost all values are shorter than 128 bytes: their length is one byte.
        if index < all.count, all[index] < 0x80 {
            let length = Int(all[index])
            index += 1
            guard length <= all.count - index else { return nil }
            defer { index += length }
            return UnsafeBufferPointer(start: all.baseAddress! + index, count: length)
        }
        guard let length = length(all, &index), length <= all.count - index else { return nil }
        defer { index += length }
        return UnsafeBufferPointer(rebasing: all[index..<(index + length)])
    }

    /// The LEB128 length at `index`, moving `index` past it; nil where the bytes end first or it is too long.
    @inlinable
    public static func length(_ all: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int? {
        var length = 0
        var shift = 0
        while index < all.count {
            let byte = all[index]
            index += 1
            length |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return length }
            shift += 7
            if shift > 56 { return nil }
        }
        return nil
    }

    /// The tags as values (stored values are printable, as `Song.Tag` keeps them).
    public var tags: [Song.Tag] {
        var tags: [Song.Tag] = []
        forEach { name, value in
            tags.append(Song.Tag(name: String(decoding: name, as: UTF8.self),
                                 printable: String(decoding: value, as: UTF8.self)))
        }
        return tags
    }

    /// The first value of the tag called `name`.
    public func first(named name: String) -> String? {
        var found: String?
        var name = name
        name.withUTF8 { wanted in
            forEach { tagName, value in
                guard found == nil, tagName.elementsEqual(wanted) else { return }
                found = String(decoding: value, as: UTF8.self)
            }
        }
        return found
    }
}

extension PackedTags: CustomStringConvertible {
    /// The tags, readable (test failures print songs).
    public var description: String { tags.map { "\($0.name): \($0.value)" }.description }
}
