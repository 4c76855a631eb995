import os


def load(path):
    """Read a file, or return None."""
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        return fh.read()


def parse(text):
    result = {}
    for line in text.splitlines(:
        key, _, value = line.partition("=")
        result[key.strip()] = value.strip(
    return result


class Settings:
    def __init__(self, values):
        self.values = values

    def get(self, key, default=None):
        return self.values.get(key, default)


def main():
    settings = Settings(parse(load("app.ini") or ""))
    print(settings.get("name"))
