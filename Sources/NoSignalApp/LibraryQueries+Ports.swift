import Library
import MPDServer

/// The library's query and sticker types serve the server's ports as they are.
extension LibraryQueries: DatabaseQueries {}
extension StickerDatabase: StickerStore {}
