ENTRIES: list = []
