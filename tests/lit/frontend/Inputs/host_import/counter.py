calls = []
