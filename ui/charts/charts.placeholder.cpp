// Placeholder so the library is not empty until its first file lands; delete when a real file is listed.
