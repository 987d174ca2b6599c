
maps