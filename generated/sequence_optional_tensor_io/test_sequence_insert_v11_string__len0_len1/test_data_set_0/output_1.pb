2🙂 ümlautB
inserted_0