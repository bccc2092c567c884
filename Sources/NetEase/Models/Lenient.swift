/// NetEase writes the same field as a number, a string or null depending on the endpoint and the year
/// (`code`, `cd`, ids in the proxy's answers). These readers accept each form and give nil for the rest,
/// so one odd field never fails a whole playlist.
extension KeyedDecodingContainer {
    func lenientInt(_ key: Key) -> Int64? {
        guard let value = try? decodeIfPresent(JSONValue.self, forKey: key) else { return nil }
        return value.intValue
    }

    func lenientString(_ key: Key) -> String? {
        guard let value = try? decodeIfPresent(JSONValue.self, forKey: key) else { return nil }
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        default: return nil
        }
    }

    func lenientBool(_ key: Key) -> Bool? {
        guard let value = try? decodeIfPresent(JSONValue.self, forKey: key) else { return nil }
        switch value {
        case .bool(let flag): return flag
        case .string(let text): return text == "true" ? true : text == "false" ? false : nil
        default: return value.intValue.map { $0 != 0 }
        }
    }

    /// An array whose elements that fail to decode are skipped (nil when absent or null).
    func lenientArray<T: Decodable>(_ type: T.Type, _ key: Key) -> [T]? {
        guard let values = try? decodeIfPresent([Lenient<T>].self, forKey: key) else { return nil }
        return values.compactMap(\.value)
    }

    func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        (try? decodeIfPresent(T.self, forKey: key)) ?? nil
    }
}

/// One element that may fail to decode without failing its array.
struct Lenient<T: Decodable>: Decodable {
    var value: T?
    init(from decoder: any Decoder) throws {
        value = try? T(from: decoder)
    }
}

/// Coding keys for any string, so one type can read several spellings of a field (`ar`/`artists`).
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
