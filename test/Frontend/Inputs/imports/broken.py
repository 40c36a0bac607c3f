LIMIT = undefined_name + 1
