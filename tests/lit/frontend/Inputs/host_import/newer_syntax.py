# a host helper in syntax that tlc does not read (a match statement)


def describe(x):
    match x:
        case 1:
            return "one"
    return "other"
