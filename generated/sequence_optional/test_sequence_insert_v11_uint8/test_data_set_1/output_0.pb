
insertedJ